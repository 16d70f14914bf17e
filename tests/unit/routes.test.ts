import { describe, expect, it } from 'vitest';
import { assertRouteMiddleware, matchRoute, ROUTES, USER_CHILDREN } from '../../src/lib/shared/routes';
import { ROUTE_MIDDLEWARE } from '../../src/lib/server/route-middleware';

describe('route table (spec §2)', () => {
  it('matches every route with its layout', () => {
    const cases: [string, string, string][] = [
      ['/', 'home', 'default'], ['/ask', 'ask', 'ask'], ['/ask/info/12', 'askInfo', 'ask'], ['/ask/lists/tag/3', 'askLists', 'ask'],
      ['/ask/post', 'askPost', 'ask'], ['/ask/search/hello', 'askSearch', 'ask'], ['/chat', 'chat', 'none'], ['/md', 'md', 'common'],
      ['/md/guide', 'mdView', 'doc'], ['/md/guide/intro', 'mdView', 'doc'], ['/md/edit/guide', 'mdEdit', 'doc'], ['/md/edit/guide/intro', 'mdEdit', 'doc'],
      ['/modules', 'modules', 'modules'], ['/modules/editor', 'moduleInfo', 'common'], ['/user', 'user', 'user'],
      ['/user/login', 'userLogin', 'none'], ['/user/card/7', 'userCard', 'none'], ['/user/iframe/https%3A%2F%2Fa.b', 'userIframe', 'user'],
      ['/user/m/cheer', 'userModule', 'user'],
    ];
    for (const [path, name, layout] of cases) {
      const m = matchRoute(path);
      expect(m?.route.name, path).toBe(name);
      expect(m?.route.layout, path).toBe(layout);
      expect(m?.valid, path).toBe(true);
    }
    for (const child of USER_CHILDREN) expect(matchRoute(`/user/${child}`)?.route.layout).toBe('user');
  });

  it('rejects parameters that break their rule', () => {
    expect(matchRoute('/ask/info/abc')?.valid).toBe(false);
    expect(matchRoute('/ask/info/0')?.valid).toBe(false);
    expect(matchRoute('/ask/lists/bogus/1')?.valid).toBe(false);
    expect(matchRoute('/user/card/x')?.valid).toBe(false);
    expect(matchRoute('/modules/Bad Uid')?.valid).toBe(false);
    expect(matchRoute('/user/m/Bad%20Uid')?.valid).toBe(false);
    expect(matchRoute('/ask/info/%E0%A4%A')?.valid).toBe(false);
  });

  it('gives no route for unknown paths', () => {
    expect(matchRoute('/nowhere')).toBeNull();
    expect(matchRoute('/user/account/unknown')).toBeNull();
  });

  it('decodes parameters', () => {
    expect(matchRoute('/ask/search/%E6%95%B0%E6%8D%AE%E5%BA%93')?.params.keywords).toBe('数据库');
  });

  it('requires login on every /user page but login and card', () => {
    for (const r of ROUTES.filter((x) => x.pattern.startsWith('/user'))) {
      const open = r.name === 'userLogin' || r.name === 'userCard';
      expect(r.middleware?.includes('auth') ?? false, r.name).toBe(!open);
    }
  });

  it('fails loudly on an unknown route middleware', () => {
    expect(() => assertRouteMiddleware(Object.keys(ROUTE_MIDDLEWARE))).not.toThrow();
    expect(() => assertRouteMiddleware(['auth'], [{ name: 'x', pattern: '/x', layout: 'default', middleware: ['auth', 'nope'] }])).toThrow(/unknown route middleware "nope"/);
  });
});
