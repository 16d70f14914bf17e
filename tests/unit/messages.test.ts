// Message-center logic without I/O: the badge text, tabs of message types, links in private
// messages, and the shared input schemas the API and the conversation form both use.
import { describe, expect, it } from 'vitest';
import { badgeText, linkify, tabOfType, TAB_TYPES, MESSAGE_TABS } from '../../src/lib/shared/messages';
import { MarkReadInput, MessageListInput, SendMessageInput } from '../../src/lib/shared/validation/messages';
import { MESSAGE_TYPES } from '../../src/lib/server/messages/notify';

describe('the badge', () => {
  it('shows nothing at zero, the number up to nine and 9+ above', () => {
    expect(badgeText(0)).toBe('');
    expect(badgeText(-1)).toBe('');
    expect(badgeText(1)).toBe('1');
    expect(badgeText(9)).toBe('9');
    expect(badgeText(10)).toBe('9+');
    expect(badgeText(250)).toBe('9+');
  });
});

describe('tabs', () => {
  it('put every message type under exactly one tab', () => {
    for (const type of MESSAGE_TYPES) {
      const tabs = Object.entries(TAB_TYPES).filter(([, types]) => types.includes(type)).map(([tab]) => tab);
      expect(tabs, type).toHaveLength(1);
      expect(tabOfType(type)).toBe(tabs[0]);
    }
    expect(tabOfType('something_new')).toBe('system');
    expect(MESSAGE_TABS[0]).toBe('all');
  });
});

describe('links in private messages', () => {
  it('become separate pieces, without trailing punctuation, and nothing else does', () => {
    expect(linkify('see https://example.com/a?b=1. and <b>bold</b>')).toEqual([
      { text: 'see ' }, { text: 'https://example.com/a?b=1', href: 'https://example.com/a?b=1' }, { text: '. and <b>bold</b>' },
    ]);
    expect(linkify('javascript:alert(1) ftp://x')).toEqual([{ text: 'javascript:alert(1) ftp://x' }]);
    expect(linkify('')).toEqual([]);
  });
});

describe('input schemas', () => {
  it('accept 1 to 2,000 characters of private message and refuse blanks and control characters', () => {
    expect(SendMessageInput.safeParse({ user_id: 5, content: 'hi\nthere\t!' }).success).toBe(true);
    expect(SendMessageInput.safeParse({ user_id: 5, content: '😀'.repeat(2000) }).success).toBe(true);
    const long = SendMessageInput.safeParse({ user_id: 5, content: 'x'.repeat(2001) });
    expect(long.success ? '' : long.error.issues[0]!.message).toBe('messages.content.tooLong');
    const blank = SendMessageInput.safeParse({ user_id: 5, content: ' \n ' });
    expect(blank.success ? '' : blank.error.issues[0]!.message).toBe('messages.content.required');
    const bell = SendMessageInput.safeParse({ user_id: 5, content: 'a\u0007' });
    expect(bell.success ? '' : bell.error.issues[0]!.message).toBe('messages.content.control');
    expect(SendMessageInput.safeParse({ user_id: 2 ** 31, content: 'x' }).success).toBe(false);
    expect(SendMessageInput.safeParse({ user_id: 5, content: 'x', extra: 1 }).success).toBe(false);
  });

  it('take ids or all of a tab to mark read, and list filters from a query string', () => {
    expect(MarkReadInput.safeParse({ ids: [1, 2] }).success).toBe(true);
    expect(MarkReadInput.safeParse({ all: true, tab: 'like' }).success).toBe(true);
    expect(MarkReadInput.safeParse({ ids: [] }).success).toBe(false);
    expect(MarkReadInput.safeParse({ all: false }).success).toBe(false);
    expect(MessageListInput.parse({ tab: 'mention', unread: '1', page: '2' })).toEqual({ tab: 'mention', unread: true, page: 2 });
    expect(MessageListInput.parse({})).toEqual({ tab: 'all', unread: false, page: 1 });
    expect(MessageListInput.safeParse({ tab: 'bogus' }).success).toBe(false);
  });
});
