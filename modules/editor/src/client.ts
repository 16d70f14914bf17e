// The editor module's client entry (`entry.client`): the component the site mounts wherever it
// edits markdown (`contributes.editor.component`). Built by scripts/build-modules.mjs with
// `react`, `react/jsx-runtime` and `@atrium/client` left to the page's import map.
export { default as MarkdownEditor } from './MarkdownEditor';
