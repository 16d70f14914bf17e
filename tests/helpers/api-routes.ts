// Every API route file under src/pages/api, its URL and its access declaration (src/lib/shared/access.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ACCESS_METHODS, type AccessMethod, type MethodAccess, type RouteAccess } from '../../src/lib/shared/access';
import { RAW_ROUTES, type RawRoute } from '../../src/server/raw-routes';
import { ROOT } from './paths';
import { request as httpRequest } from 'node:http';
import { collectResponse, postJson, raw, type RawResponse } from './server';
import { multipart } from './files';
import type { Sample } from './route-samples';

export interface ApiRoute {
  /** `/api/ask/index/index`: the file under src/pages, without `.ts` (the key of SAMPLES). */
  key: string;
  /** What a client calls: `/api/ask/index`. */
  url: string;
  file: string;
  access: RouteAccess | undefined;
}

const API_DIR = join(ROOT, 'src/pages/api');

export function routeFiles(): string[] {
  return (readdirSync(API_DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(API_DIR, f)).sort();
}

export function urlOf(key: string): string {
  if (key.includes('[...')) return key.replace(/\/\[\.\.\.[^\]]+\]$/, '/no/such/route');
  return key.replace(/\/index$/, '');
}

/**
 * The route files, then the routes the Node server answers itself without a route file
 * (src/server/raw-routes.ts: those with one take the file's declaration, the very object).
 */
export async function loadRoutes(): Promise<ApiRoute[]> {
  const files = await Promise.all(routeFiles().map(async (file) => {
    const key = `/${relative(join(ROOT, 'src/pages'), file).replace(/\.ts$/, '').split('\\').join('/')}`;
    const mod = (await import(pathToFileURL(file).href)) as { access?: RouteAccess };
    return { key, url: urlOf(key), file, access: mod.access };
  }));
  const rawRoutes = [...RAW_ROUTES].filter(([path]) => !files.some((f) => f.url === path))
    .map(([key, route]) => ({ key, url: key, file: join(ROOT, 'src/server/raw-routes.ts'), access: route.access }));
  return [...files, ...rawRoutes];
}

/**
 * Problems with the raw routes' declarations: an `/api/...` path named in src/server/*.ts that is
 * not in the table (a branch that would answer it past the checks), a route without a declaration
 * for its method, a route with a route file whose declaration is a copy rather than the file's own.
 */
export async function rawRouteProblems(files: readonly ApiRoute[], dir = join(ROOT, 'src/server'), table: ReadonlyMap<string, RawRoute> = RAW_ROUTES): Promise<string[]> {
  const problems: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/'(\/api\/[^'/]+\/[^']*)'/g)) {
      if (!table.has(m[1]!)) problems.push(`${m[1]}: named in src/server/${f}, not declared in src/server/raw-routes.ts`);
    }
  }
  for (const [path, route] of table) {
    if (!route.access?.[route.method]) problems.push(`${path}: no declaration for ${route.method} in src/server/raw-routes.ts`);
    const file = files.find((r) => r.url === path && r.file.startsWith(API_DIR));
    if (file && file.access !== route.access) problems.push(`${path}: src/server/raw-routes.ts declares it again instead of taking ${relative(ROOT, file.file)}'s \`access\``);
  }
  return problems;
}

export function methodsOf(access: RouteAccess): [AccessMethod, MethodAccess][] {
  return ACCESS_METHODS.flatMap((method): [AccessMethod, MethodAccess][] => (access[method] ? [[method, access[method]]] : []));
}

/** Sends a sample as `actor` (by token header, as the API client does). */
export function send(base: string, url: string, method: AccessMethod, sample: Sample, token: string | undefined, extra: Record<string, string> = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { 'think-lang': 'en', ...(token ? { 'ba-user-token': token } : {}), ...extra };
  const qs = new URLSearchParams(Object.entries(sample.query ?? {}).map(([k, v]) => [k, String(v)])).toString();
  const path = qs ? `${url}?${qs}` : url;
  if (sample.stream) return head(base, path, headers);
  if (sample.file) {
    const form = multipart(sample.file);
    return raw(base, path, { method: 'POST', headers: { ...headers, 'content-type': form.type }, body: form.body });
  }
  if (method === 'GET' || (method === 'ALL' && sample.body === undefined)) return raw(base, path, { headers });
  return postJson(base, url, sample.body ?? {}, headers);
}

/** A GET whose reply may stay open: its status and headers, and the first chunk if it is JSON. */
export function head(base: string, path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { headers, agent: false }, (res) => {
      if (String(res.headers['content-type'] ?? '').includes('json')) return collectResponse(res, resolve);
      const text = '';
      resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.alloc(0), text, json: () => JSON.parse(text) });
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}
