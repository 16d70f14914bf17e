// Subdomain deployments (spec §2): modules., ask. and doc. serve their area at the root.
// Pure functions shared by the HTTP server (incoming paths) and pages (outgoing links).

export type Area = 'main' | 'ask' | 'modules' | 'doc';

/** App path prefix served at the root of each subdomain. */
const AREA_PREFIX: Record<Exclude<Area, 'main'>, string> = { ask: '/ask', modules: '/modules', doc: '/md' };

/** Paths that mean the same on every host and are never rewritten. */
const SHARED_PATH = /^\/(?:api|_astro|user|storage|healthz|build-manifest\.json|favicon\.svg|favicon\.ico|robots\.txt)(?:[/?#.]|$)/;

export interface HostContext {
  area: Area;
  /** e.g. `example.com`; null when subdomains are off. */
  siteDomain: string | null;
  /** Port of the incoming request's Host header, kept in absolute links ('' for default ports). */
  port: string;
}

/** Which area a Host header belongs to. Unknown hosts are the main site. */
export function areaOfHost(host: string | undefined, siteDomain: string | null): { area: Area; port: string } {
  const [hostname = '', port = ''] = (host ?? '').toLowerCase().split(':');
  if (!siteDomain || !hostname.endsWith(`.${siteDomain}`)) return { area: 'main', port };
  const sub = hostname.slice(0, -siteDomain.length - 1);
  return { area: sub === 'ask' || sub === 'modules' || sub === 'doc' ? sub : 'main', port };
}

function join(prefix: string, rest: string): string {
  if (rest === '/' || rest === '') return prefix;
  return rest.startsWith('/') || rest.startsWith('?') ? prefix + rest : `${prefix}/${rest}`;
}

/** Maps the path a subdomain received to the app's own path (`ask.example.com/info/5` → `/ask/info/5`). */
export function toAppPath(area: Area, publicPath: string): string {
  if (area === 'main' || SHARED_PATH.test(publicPath)) return publicPath;
  const [pathname = '/', query = ''] = splitQuery(publicPath);
  const q = query ? `?${query}` : '';
  if (pathname === '/home' || pathname === '/home/') return `/${q}`;
  if (area === 'modules' && (pathname === '/communityBack' || pathname.startsWith('/communityBack/'))) {
    return join('/ask', pathname.slice('/communityBack'.length)) + q;
  }
  return join(AREA_PREFIX[area], pathname) + q;
}

/** The area whose subdomain owns an app path, or 'main'. */
export function areaOfPath(appPath: string): Area {
  for (const [area, prefix] of Object.entries(AREA_PREFIX) as [Exclude<Area, 'main'>, string][]) {
    if (appPath === prefix || appPath.startsWith(`${prefix}/`) || appPath.startsWith(`${prefix}?`)) return area;
  }
  return 'main';
}

/** The public path of an app path on its own area's host (`/ask/info/5` on ask → `/info/5`). */
function publicPathIn(area: Area, appPath: string): string {
  if (area === 'main') return appPath;
  if (SHARED_PATH.test(appPath)) return appPath;
  const owner = areaOfPath(appPath);
  if (area === 'modules' && owner === 'ask') return join('/communityBack', appPath.slice('/ask'.length));
  if (owner !== area) return appPath === '/' ? '/home' : appPath;
  const rest = appPath.slice(AREA_PREFIX[area].length);
  return rest === '' ? '/' : rest.startsWith('?') ? `/${rest}` : rest;
}

/** The path a reader on this host typed for an app path (`/ask/nope` on ask. → `/nope`). */
export function publicPathFor(appPath: string, ctx: HostContext): string {
  return !ctx.siteDomain || ctx.area === 'main' ? appPath : publicPathIn(ctx.area, appPath);
}

/**
 * The href for an app path as seen from the current host. On the main site (or without
 * SITE_DOMAIN) links stay as they are; on a subdomain, paths of the same area lose their
 * prefix and paths of another area point to that area's host.
 */
export function linkFor(appPath: string, ctx: HostContext): string {
  if (!ctx.siteDomain || ctx.area === 'main' || /^[a-z]+:|^\/\//i.test(appPath)) return appPath;
  if (/^\/(?:api|_astro|storage)(?:[/?]|$)/.test(appPath)) return appPath;
  const owner = areaOfPath(appPath);
  const port = ctx.port ? `:${ctx.port}` : '';
  if (owner === ctx.area || (ctx.area === 'modules' && owner === 'ask')) return publicPathIn(ctx.area, appPath);
  if (owner === 'main') return `//${ctx.siteDomain}${port}${appPath}`;
  return `//${owner}.${ctx.siteDomain}${port}${publicPathIn(owner, appPath)}`;
}

function splitQuery(path: string): [string, string] {
  const i = path.indexOf('?');
  return i < 0 ? [path, ''] : [path.slice(0, i), path.slice(i + 1)];
}

/** `/api/Cos/callback` → `/api/cos/callback`: controllers are case-insensitive, actions keep their case. */
export function normalizeApiPath(path: string): string {
  return path.replace(/^\/api\/([^/?]+)/, (_, controller: string) => `/api/${controller.toLowerCase()}`);
}
