import type { Locale } from '../../i18n';
import { linkFor, type HostContext } from '../../shared/hosts';
import type { ConfigStore } from './config';
import { parseSize } from './config';

export interface NavItem {
  title: string;
  /** App path, as stored. */
  url: string;
  /** Href for the current host (subdomain-aware). */
  href: string;
}

type StoredNav = { title: string | Partial<Record<Locale, string>>; url: string; target?: string };

/** The head navigation from config `head_nav`, titles in the request's language. Bad JSON gives an empty list. */
export function parseHeadNav(raw: string, locale: Locale, host: HostContext): NavItem[] {
  let items: unknown;
  try { items = JSON.parse(raw || '[]'); } catch { return []; }
  if (!Array.isArray(items)) return [];
  return (items as StoredNav[])
    .filter((i) => i && typeof i.url === 'string' && i.title)
    .map((i) => {
      const title = typeof i.title === 'string' ? i.title : i.title[locale] ?? Object.values(i.title)[0] ?? i.url;
      return { title, url: i.url, href: linkFor(i.url, host) };
    });
}

export interface SiteChrome {
  siteName: string;
  recordNumber: string;
  version: string;
  headNav: NavItem[];
}

export async function siteChrome(site: ConfigStore, locale: Locale, host: HostContext): Promise<SiteChrome> {
  const cfg = await site.all();
  return {
    siteName: cfg.get('site_name') || 'Atrium',
    recordNumber: cfg.get('record_number') ?? '',
    version: cfg.get('version') ?? '',
    headNav: parseHeadNav(cfg.get('head_nav') ?? '[]', locale, host),
  };
}

/** `data.site` of /api/index/index (spec §3 site configuration). */
export async function siteInfo(site: ConfigStore, locale: Locale, host: HostContext, requestHost: string) {
  const cfg = await site.all();
  const self = `//${requestHost}`;
  const chrome = await siteChrome(site, locale, host);
  return {
    siteName: chrome.siteName,
    recordNumber: chrome.recordNumber,
    version: chrome.version,
    cdnUrl: cfg.get('cdn_url') || self,
    apiUrl: cfg.get('api_url') || self,
    upload: {
      mode: cfg.get('upload_mode') || 'local',
      maxSize: parseSize(cfg.get('upload_max_size') || '10mb'),
      allowedSuffixes: cfg.get('upload_allowed_suffixes') ?? '',
      allowedMimeTypes: cfg.get('upload_allowed_mime_types') ?? '',
      saveName: cfg.get('upload_save_name') ?? '',
      // Storage parameters for direct uploads (bucket, region, optional error code and message).
      params: parseParams(cfg.get('upload_params')),
    },
    headNav: chrome.headNav.map(({ title, url, href }) => ({ title, url, href })),
    initialize: true,
    userInitialize: false,
    openSourceStarDialog: cfg.get('open_source_star_dialog') === '1',
  };
}

function parseParams(raw: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
