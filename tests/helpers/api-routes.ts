// Every API route file under src/pages/api, its URL and its access declaration (src/lib/shared/access.ts).
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AccessMethod, MethodAccess, RouteAccess } from '../../src/lib/shared/access';
import { ROOT } from './paths';
import { postJson, raw, type RawResponse } from './server';
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

export async function loadRoutes(): Promise<ApiRoute[]> {
  return Promise.all(routeFiles().map(async (file) => {
    const key = `/${relative(join(ROOT, 'src/pages'), file).replace(/\.ts$/, '').split('\\').join('/')}`;
    const mod = (await import(pathToFileURL(file).href)) as { access?: RouteAccess };
    return { key, url: urlOf(key), file, access: mod.access };
  }));
}

export function methodsOf(access: RouteAccess): [AccessMethod, MethodAccess][] {
  return (Object.entries(access) as [AccessMethod, MethodAccess][]).filter(([, m]) => m !== undefined);
}

/** Sends a sample as `actor` (by token header, as the API client does). */
export function send(base: string, url: string, method: AccessMethod, sample: Sample, token: string | undefined, extra: Record<string, string> = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { 'think-lang': 'en', ...(token ? { 'ba-user-token': token } : {}), ...extra };
  if (method === 'GET' || (method === 'ALL' && sample.body === undefined)) {
    const qs = new URLSearchParams(Object.entries(sample.query ?? {}).map(([k, v]) => [k, String(v)])).toString();
    return raw(base, qs ? `${url}?${qs}` : url, { headers });
  }
  return postJson(base, url, sample.body ?? {}, headers);
}

