import { describe, expect, it } from 'vitest';
import { buildTree, embeddable, menusOf, parseIframeOrigins, splitRules, titleOf } from '../../src/lib/server/site/rules';

type Row = Parameters<typeof buildTree>[0][number];
let nextId = 1;
const row = (over: Partial<Row>): Row => ({
  id: nextId++, pid: 0, type: 'menu', title: 'T', name: 'n', path: 'p', icon: '', menuType: 'tab', url: '', component: '',
  noLoginValid: 0, extend: 'none', remark: '', weigh: 0, status: 1, updateTime: 0, createTime: 0, titleEn: '', redirect: '', system: 1, ...over,
});

describe('rule tree', () => {
  it('nests children and promotes orphans', () => {
    const dir = row({ type: 'menu_dir', name: 'account' });
    const child = row({ pid: dir.id, name: 'account/overview' });
    const orphan = row({ pid: 999, type: 'nav', name: 'orphan' });
    const tree = buildTree([dir, child, orphan], 'en');
    expect(tree.map((n) => n.name)).toEqual(['account', 'orphan']);
    expect(tree[0]?.children?.map((n) => n.name)).toEqual(['account/overview']);
    expect(tree[0]?.title).toBe('My account');
  });

  it('drops empty menu dirs and add_rules_only nodes from menus', () => {
    const full = row({ type: 'menu_dir', name: 'a' });
    const empty = row({ type: 'menu_dir', name: 'b' });
    const hiddenOnly = row({ type: 'menu_dir', name: 'c' });
    const rows = [
      full, row({ pid: full.id, name: 'a/x' }), row({ pid: full.id, name: 'a/y', extend: 'add_rules_only' }),
      empty, hiddenOnly, row({ pid: hiddenOnly.id, name: 'c/z', extend: 'add_rules_only' }),
    ];
    const menus = menusOf(buildTree(rows, 'zh-cn'), []);
    expect(menus.map((m) => m.name)).toEqual(['a']);
    expect(menus[0]?.children?.map((m) => m.name)).toEqual(['a/x']);
  });

  it('splits menu dirs into menus and drops top-level menus (reference §1a)', () => {
    const dir = row({ type: 'menu_dir', name: 'd' });
    const tree = buildTree([dir, row({ pid: dir.id, name: 'd/m' }), row({ type: 'menu', name: 'top' }), row({ type: 'route', name: 'r' }), row({ type: 'nav_user_menu', name: 'u' })], 'en');
    const { rules, menus } = splitRules(tree, []);
    expect(menus.map((m) => m.name)).toEqual(['d']);
    expect(rules.map((r) => r.name)).toEqual(['r', 'u']);
  });

  it('leaves out iframe menus whose origin is not allowed (any more), and a directory they leave empty', () => {
    const dir = row({ type: 'menu_dir', name: 'docs' });
    const lone = row({ type: 'menu_dir', name: 'lone' });
    const rows = [
      dir, row({ pid: dir.id, name: 'docs/kept', menuType: 'iframe', url: 'https://docs.example.com/start' }),
      row({ pid: dir.id, name: 'docs/gone', menuType: 'iframe', url: 'https://old.example.com/start' }),
      row({ pid: dir.id, name: 'docs/script', menuType: 'iframe', url: 'javascript:alert(1)' }),
      row({ pid: dir.id, name: 'docs/link', menuType: 'link', url: 'https://old.example.com/' }),
      lone, row({ pid: lone.id, name: 'lone/frame', menuType: 'iframe', url: 'https://old.example.com/x' }),
    ];
    const origins = parseIframeOrigins(' https://docs.example.com/ ,, https://other.example.org');
    expect(origins).toEqual(['https://docs.example.com', 'https://other.example.org']);
    const menus = menusOf(buildTree(rows, 'en'), origins);
    expect(menus.map((m) => m.name)).toEqual(['docs']);
    expect(menus[0]?.children?.map((m) => m.name)).toEqual(['docs/kept', 'docs/link']);
    expect(menusOf(buildTree(rows, 'en'), []).flatMap((m) => m.children?.map((c) => c.name))).toEqual(['docs/link']);
    expect([embeddable('https://docs.example.com/a?b', origins), embeddable('http://docs.example.com/a', origins), embeddable('not a url', origins)]).toEqual([true, false, false]);
  });

  it('titles: a seeded rule reads the dictionaries until an administrator renames it; a rule made in the console shows its own titles', () => {
    const seeded = row({ name: 'account/balance', title: '余额记录' });
    expect([titleOf(seeded, 'en'), titleOf(seeded, 'zh-cn')]).toEqual(['Balance', '余额记录']);
    const renamed = row({ name: 'account/balance', title: '我的钱包', titleEn: 'Wallet' });
    expect([titleOf(renamed, 'en'), titleOf(renamed, 'zh-cn')]).toEqual(['Wallet', '我的钱包']);
    const made = row({ name: 'account/handbook', title: '手册', system: 0 });
    expect([titleOf(made, 'en'), titleOf(made, 'zh-cn')]).toEqual(['手册', '手册']);
    expect(buildTree([row({ type: 'route', name: 'old', redirect: '/ask' })], 'en')[0]?.redirect).toBe('/ask');
  });
});
