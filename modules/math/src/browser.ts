// The math module's browser half: the same rendering as the server entry, for the editor's preview
// and the chat's streaming view (the site imports it on demand and sanitises its output the same way).
import { defineBrowserMarkdown } from '../../sdk';
import { renderItems } from './render';

export default defineBrowserMarkdown({
  markdown: (items) => renderItems(items),
});
