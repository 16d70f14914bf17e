// The table of the API paths the Node server answers itself (src/server/raw-routes.ts): the check
// the authorization matrix runs on it (tests/helpers/api-routes.ts rawRouteProblems) finds a path
// answered without a declaration, and a declaration copied instead of taken from the route file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { rawRouteProblems, type ApiRoute } from '../helpers/api-routes';
import { RAW_ROUTES, rawRoute, type RawRoute } from '../../src/server/raw-routes';
import { access as countAccess } from '../../src/pages/api/interaction/count';
import { MEMBERS, routeAccess } from '../../src/lib/shared/access';
import { ROOT } from '../helpers/paths';

const dir = mkdtempSync(join(tmpdir(), 'raw-routes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const countFile: ApiRoute = { key: '/api/interaction/count', url: '/api/interaction/count', file: join(ROOT, 'src/pages/api/interaction/count.ts'), access: countAccess };

describe('the raw route table', () => {
  it('holds as it stands', async () => {
    expect(await rawRouteProblems([countFile])).toEqual([]);
  });

  it('fails a path the Node server answers without a declaration', async () => {
    writeFileSync(join(dir, 'app.ts'), "if (pathname === '/api/ajax/upload' || pathname === '/api/secret/thing') answer();\n");
    expect(await rawRouteProblems([countFile], dir)).toEqual(['/api/secret/thing: named in src/server/app.ts, not declared in src/server/raw-routes.ts']);
  });

  it("fails a route without a declaration for its method, and a copy of a route file's declaration", async () => {
    const table = new Map<string, RawRoute>(RAW_ROUTES);
    const upload = RAW_ROUTES.get('/api/ajax/upload')!;
    table.set('/api/ajax/upload', { ...upload, access: routeAccess({ GET: { ...MEMBERS } }) });
    table.set('/api/interaction/count', { ...RAW_ROUTES.get('/api/interaction/count')!, access: { ...countAccess } });
    expect(await rawRouteProblems([countFile], dir, table)).toEqual([
      '/api/secret/thing: named in src/server/app.ts, not declared in src/server/raw-routes.ts',
      '/api/ajax/upload: no declaration for POST in src/server/raw-routes.ts',
      "/api/interaction/count: src/server/raw-routes.ts declares it again instead of taking src/pages/api/interaction/count.ts's `access`",
    ]);
  });

  it('dispatches only the declared method, and the count only for the queries it answers', () => {
    expect(rawRoute('/api/ajax/upload', 'POST', '')).toBe(RAW_ROUTES.get('/api/ajax/upload'));
    expect(rawRoute('/api/ajax/upload', 'GET', '')).toBeUndefined();
    expect(rawRoute('/api/interaction/count', 'GET', '?push=1')).toBeDefined();
    expect(rawRoute('/api/interaction/count', 'GET', '?push=2')).toBeUndefined();
    expect(rawRoute('/api/no/such', 'GET', '')).toBeUndefined();
    expect(rawRoute('__proto__', 'GET', '')).toBeUndefined();
  });
});
