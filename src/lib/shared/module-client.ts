// What a module's client code gets from the site (the import map's specifiers, the client SDK's
// exports) and the props the site passes to the editor module's component. Shared by the server,
// which writes the import map and the re-exporting modules it points at, and by the islands.

import type { SlotFill, SlotProps } from './module-slots';

/** The bare specifiers a module's browser entry may import: the page's import map provides them. */
export const MODULE_SPECIFIERS = ['react', 'react/jsx-runtime', '@atrium/client'] as const;
export type ModuleSpecifier = (typeof MODULE_SPECIFIERS)[number];

/** The named exports of `@atrium/client` (src/islands/modules/client-sdk.ts). */
export const CLIENT_SDK_EXPORTS = [
  'DRAFT_MAX_AGE', 'UploadQueue', 'clearDraft', 'enqueueUpload', 'flushDraft', 'hasDraft', 'interpolate', 'onModuleMarkdown', 'readDraft',
  'removeDraft', 'renderWithPageModules', 'scheduleDraft',
] as const;

/**
 * The named exports of `react` modules may use: React's public API (a unit test keeps the list equal
 * to the installed React's, tests/unit/module-client.test.ts). Listed, not read from React at start:
 * the server must not load a second React build beside the one Astro renders with.
 */
export const REACT_EXPORTS = [
  'Activity', 'Children', 'Component', 'Fragment', 'Profiler', 'PureComponent', 'StrictMode', 'Suspense', 'ViewTransition', 'act',
  'addTransitionType', 'cache', 'cacheSignal', 'captureOwnerStack', 'cloneElement', 'createContext', 'createElement', 'createRef', 'forwardRef',
  'isValidElement', 'lazy', 'memo', 'startTransition', 'unstable_useCacheRefresh', 'use', 'useActionState', 'useCallback', 'useContext',
  'useDebugValue', 'useDeferredValue', 'useEffect', 'useEffectEvent', 'useId', 'useImperativeHandle', 'useInsertionEffect', 'useLayoutEffect',
  'useMemo', 'useOptimistic', 'useReducer', 'useRef', 'useState', 'useSyncExternalStore', 'useTransition', 'version',
] as const;

/** The named exports of `react/jsx-runtime` modules may use. */
export const JSX_RUNTIME_EXPORTS = ['Fragment', 'jsx', 'jsxs'] as const;

/** The global the site's island fills with its React and SDK before importing a module's client entry. */
export const MODULE_DEPS_GLOBAL = '__atriumModuleDeps';

/** The editor module's client component on a page (Base.astro writes it as `#atrium-editor-module`). */
export interface EditorClient {
  /** The client entry's hashed, immutable URL. */
  url: string;
  /** Its stylesheet's URL, when it has one. */
  css: string | null;
  /** The export mounted in place of the editor (`contributes.editor.component`, default `default`). */
  component: string;
  /** Pixels reserved while it loads, so the page does not jump. */
  height: number;
  version: string;
}

/** What a page knows of the editor module, as it hands it to its forms (EditorSlot). */
export interface EditorState {
  installed: boolean;
  /** Its client component when this instance runs it (null: not installed, or it has none here). */
  client: EditorClient | null;
  /** Not installed: what the place of the editor says, in the page's language. */
  notice?: { title: string; lead: string };
  /** Running modules' `editor.toolbar` components, shown above the editor (absent when there are none). */
  toolbar?: { fills: SlotFill[]; locale: SlotProps['locale'] };
}

/** What the site passes to the editor component: the props every form gave the built-in editor. */
export interface EditorProps {
  /** The textarea's name, so a plain form post carries the text too. */
  name: string;
  value: string;
  onChange(value: string): void;
  /** `DICTIONARIES[locale].editor`. */
  messages: Record<string, string>;
  /** Autosaves to localStorage `atrium-draft:<draftKey>` and offers the draft back on the next visit. */
  draftKey?: string;
  /** Upload topic for pasted and dropped images; `default` when absent. */
  uploadTopic?: string;
  rows?: number;
  placeholder?: string;
  /** The textarea's visible label. */
  label: string;
  autoFocus?: boolean;
  /** Write/Preview tabs, or side by side (tabs again below 800 px). Default `tabs`. */
  layout?: 'tabs' | 'split';
  /** Split view: scrolling either side scrolls the other to the same place, matched heading by heading. */
  syncScroll?: boolean;
}
