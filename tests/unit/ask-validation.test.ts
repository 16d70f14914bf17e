// The forum's empty-body messages (spec §5): a post's or reply's body is written in the site
// editor ("Editor required"); a comment is a plain line ("Content cannot be empty").
import { describe, expect, it } from 'vitest';
import { PostInput, ReplyInput } from '../../src/lib/shared/validation/ask';
import { translator } from '../../src/lib/i18n';

const message = (r: { success: boolean; error?: { issues: { message: string }[] } }): string | undefined => r.error?.issues[0]?.message;

describe('an empty body', () => {
  it('is "Editor required" for a post and a reply, "Content cannot be empty" for a comment', () => {
    expect(message(PostInput.safeParse({ title: 'A good title', category_id: 1, content: '  \n ' }))).toBe('validation.editorRequired');
    expect(message(ReplyInput.safeParse({ post_id: 1, content: '' }))).toBe('validation.editorRequired');
    expect(message(ReplyInput.safeParse({ post_id: 1 }))).toBe('validation.editorRequired');
    expect(message(ReplyInput.safeParse({ post_id: 1, parent_id: 3, content: ' ' }))).toBe('validation.content');
  });

  it('says so in both languages', () => {
    expect(translator('en', 'validation')('validation.editorRequired')).toBe('Editor required');
    expect(translator('zh-cn', 'validation')('validation.editorRequired')).toBe('编辑器必填');
    expect(translator('en', 'validation')('validation.content')).toBe('Content cannot be empty');
    expect(translator('zh-cn', 'validation')('validation.content')).toBe('内容不能为空');
  });
});
