import { describe, expect, it } from 'vitest';
import { buildAuthNode, hasButton } from '../../src/lib/shared/auth-node';

const tree = [
  { type: 'menu_dir', name: 'account', path: 'account', children: [
    { type: 'menu', name: 'account/balance', path: 'account/balance', children: [
      { type: 'button', name: 'account/balance/export', path: '' },
    ] },
    { type: 'menu', name: 'account/profile', path: 'account/profile', children: [] },
  ] },
];

describe('button permissions (spec §5)', () => {
  const map = buildAuthNode(tree);
  it('maps each route to its buttons', () => {
    expect(map.get('/user/account/balance')).toEqual(['/user/account/balance/export']);
  });
  it('grants a button of the current route by its short name', () => {
    expect(hasButton(map, '/user/account/balance', 'export')).toBe(true);
    expect(hasButton(map, '/user/account/balance', 'delete')).toBe(false);
    expect(hasButton(map, '/user/account/profile', 'export')).toBe(false);
  });
  it('grants a named node and sub-node from anywhere', () => {
    expect(hasButton(map, '/user/account/profile', 'account/balance/export')).toBe(true);
    expect(hasButton(map, '/user/account/profile', 'account/profile/export')).toBe(false);
  });
});
