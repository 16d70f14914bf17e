// The console's view of the markets this site is connected to (src/components/admin/RemoteMarket.astro
// and /api/admin/remoteMarkets|remoteModules): each market with what it offers this site's token,
// named in the administrator's language, beside what is installed here. A market that does not
// answer is reported in its own row, in the administrator's language, without hiding the others.
import { translateAny } from '../../i18n';
import type { Locale } from '../../i18n/types';
import { compareVersions } from '../../shared/market';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { installedList } from './lifecycle';
import { fetchList, remotes } from './remote';

export interface OfferedModule {
  uid: string;
  name: string;
  /** The newest version offered to the token. */
  latest: string;
  free: boolean;
  /** The version installed here, or null. */
  installed: string | null;
  /** Whether the newest offered is newer than the one installed here (or nothing is). */
  installable: boolean;
  capabilities: string[];
}

export interface MarketOffers {
  id: number;
  url: string;
  fingerprint: string;
  createTime: number;
  modules: OfferedModule[];
  /** Why the market's list could not be read, in the administrator's language; null when it was. */
  error: string | null;
}

/** The message of an error from a remote market in `locale` (an unexpected one says only that it failed). */
export function remoteErrorText(locale: Locale, err: unknown, url: string): string {
  if (err instanceof AppError) return translateAny(locale, err.key, err.options.values);
  return translateAny(locale, 'market.remote.unreachable', { url, reason: err instanceof Error ? err.message : String(err) });
}

/** Every connected market; with `withModules`, what each offers this site's token now. */
export async function marketOffers(rt: Pick<Runtime, 'db'>, locale: Locale, withModules: boolean): Promise<MarketOffers[]> {
  const installed = new Map((await installedList(rt)).map((r) => [r.uid, r.version]));
  const out: MarketOffers[] = [];
  for (const remote of await remotes(rt)) {
    const row: MarketOffers = { id: remote.id, url: remote.url, fingerprint: remote.fingerprint, createTime: remote.createTime, modules: [], error: null };
    if (withModules) {
      try {
        row.modules = (await fetchList(remote)).map((m) => {
          const here = installed.get(m.uid) ?? null;
          const newest = m.versions.find((v) => v.version === m.latest);
          const manifest = newest?.manifest as { capabilities?: unknown } | undefined;
          return {
            uid: m.uid, name: (locale === 'en' ? m.nameEn || m.name : m.name || m.nameEn) || m.uid, latest: m.latest, free: m.free, installed: here,
            installable: !here || compareVersions(m.latest, here) > 0,
            capabilities: Array.isArray(manifest?.capabilities) ? manifest.capabilities.filter((c): c is string => typeof c === 'string') : [],
          };
        });
      } catch (err) {
        row.error = remoteErrorText(locale, err, remote.url);
      }
    }
    out.push(row);
  }
  return out;
}
