import { describe, expect, it } from 'vitest';
import { mentionsIn } from '../../src/lib/server/ask/render';

describe('mentionsIn', () => {
  it('finds @usernames once each, lower-cased', () => {
    expect(mentionsIn('Thanks @Alice and @bob_2, also @alice again')).toEqual(['alice', 'bob_2']);
  });

  it('ignores e-mail addresses, code and names that break the username rule', () => {
    expect(mentionsIn('mail me@example.com or see `@carol` and\n```\n@dave\n```\n@x1 @9lives @ok_name')).toEqual(['ok_name']);
  });

  it('tells at most ten members per body', () => {
    const body = Array.from({ length: 15 }, (_, i) => `@member${i}`).join(' ');
    expect(mentionsIn(body)).toHaveLength(10);
  });
});
