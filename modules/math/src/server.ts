// The math module's server entry: runs in its module host process and renders the spans the site's
// markdown parser claimed for it ($…$, $$…$$ and ```math fences) once per document, when the
// document is written or re-rendered. The site sanitises the MathML and stores it.
import { defineModule } from '../../sdk';
import { renderItems } from './render';

export default defineModule({
  hooks: {
    markdown: (items) => renderItems(items),
  },
});
