// Slots: named places in the site's pages where an installed module's client component mounts
// (manifest `contributes.slots`). The server lists a slot's fills for the page (modules/slots.ts),
// the page reserves their space and hands them to the ModuleSlot island, which loads each
// component from its package's hashed URL with the page's React and client SDK (import map).

/** Every slot a manifest may fill. */
export const SLOTS = ['post.footer', 'docs.aside', 'home.section', 'user.menu', 'user.page', 'admin.section', 'editor.toolbar'] as const;
export type SlotName = (typeof SLOTS)[number];

/** One module's component in a slot, as a page hands it to the island. */
export interface SlotFill {
  uid: string;
  version: string;
  /** The client entry's hashed, immutable URL. */
  url: string;
  /** The export mounted there. */
  component: string;
  /** Pixels reserved while it loads, so the page does not jump. */
  height: number;
  /** The module's name in the page's language (the region's label). */
  label: string;
}

/** What an `editor.toolbar` component is given to act on the text being edited. */
export interface EditorToolbarApi {
  /** Puts `text` at the caret (in place of the selection), as if typed: the form, its draft and the preview follow. */
  insert(text: string): void;
}

/** What a slot's component is given: where it is, in which language, and the page's subject. */
export interface SlotProps {
  slot: SlotName;
  locale: 'zh-cn' | 'en';
  /** The page's subject: `{ postId }` under a post, `{ book, page }` beside a docs page, `{}` elsewhere. */
  context: Readonly<Record<string, string | number>>;
  /** In `editor.toolbar` only: the text being edited. */
  editor?: EditorToolbarApi;
}
