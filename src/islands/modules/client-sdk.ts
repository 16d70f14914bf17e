// The client SDK the site gives module client code: what `import … from '@atrium/client'` means in
// a module's browser entry (the page's import map points the specifier at a tiny site-served module
// that re-exports this object; src/lib/server/modules/client-shims.ts). Modules get the site's own
// instances (one upload queue, one markdown renderer with the installed modules' markdown, the
// drafts every form shares), never bundled copies. Its export names are listed in
// src/lib/shared/module-client.ts (CLIENT_SDK_EXPORTS); a unit test keeps the two equal.
export { enqueueUpload } from '../../lib/client/stores/upload';
export { default as UploadQueue } from '../upload/UploadQueue';
export { interpolate } from '../../lib/i18n/types';
export { onModuleMarkdown, renderWithPageModules } from '../../lib/client/module-markdown';
export { DRAFT_MAX_AGE, clearDraft, flushDraft, hasDraft, readDraft, removeDraft, scheduleDraft } from '../../lib/client/drafts';
export type { EditorProps } from '../../lib/shared/module-client';
