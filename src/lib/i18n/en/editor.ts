import type zh from '../zh-cn/editor';
import type { Messages } from '../types';

export default {
  'editor.toolbar': 'Formatting',
  'editor.write': 'Write',
  'editor.preview': 'Preview',
  'editor.bold': 'Bold',
  'editor.italic': 'Italic',
  'editor.heading': 'Heading',
  'editor.link': 'Link',
  'editor.quote': 'Quote',
  'editor.code': 'Inline code',
  'editor.codeBlock': 'Code block',
  'editor.bulletList': 'Bulleted list',
  'editor.numberedList': 'Numbered list',
  'editor.taskList': 'Task list',
  'editor.table': 'Table',
  'editor.image': 'Upload image',
  'editor.uploading': 'Uploading {name}…',
  'editor.uploadingCount': 'Uploading images: {count}',
  'editor.hint': 'Markdown supported; paste or drop images to upload them. In a list, Tab indents: press Esc first to leave the editor with Tab.',
  'editor.draftRestored': 'Draft restored',
  'editor.discardDraft': 'Discard draft',
  'editor.empty': 'Nothing to preview',
  'editor.loading': 'Loading the editor…',
  'editor.failed': 'The editor could not be loaded. Write markdown in this plain box instead: what you type is kept and sent with the form.',
} as const satisfies Messages<typeof zh>;
