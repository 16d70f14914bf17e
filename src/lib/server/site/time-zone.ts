// One clock: every time on a page is shown in the member's own zone (profile) or else the site's
// `time_zone` setting, on the server and in islands alike (they get the zone as a prop).
import { DEFAULT_TIME_ZONE, isTimeZone } from '../../shared/date';
import type { ConfigStore } from './config';

/** The site's zone (`time_zone`), or the default when the setting is not a zone this runtime knows. */
export async function siteTimeZone(site: Pick<ConfigStore, 'get'>): Promise<string> {
  const zone = await site.get('time_zone', DEFAULT_TIME_ZONE);
  return isTimeZone(zone) ? zone : DEFAULT_TIME_ZONE;
}

/** The zone this request's reader sees times in: their own choice, else the site's. */
export async function viewerTimeZone(locals: App.Locals): Promise<string> {
  const own = locals.session?.row.timeZone ?? '';
  return own && isTimeZone(own) ? own : siteTimeZone(locals.runtime.site);
}
