// What a module's markdown output may contain, for the server's sanitiser (sanitize-html) and the
// browser's (DOMPurify) alike: MathML with its presentational attributes, and a few plain elements
// carrying classes for the module's stylesheet. No styles (a module's CSS file styles its output),
// no scripts, no event handlers, no links, no images, no forms: module output decorates text, it
// does not navigate, load or run anything.

/** MathML Core's elements, plus `annotation` and the legacy ones temml and KaTeX still emit. */
export const MATHML_TAGS = [
  'math', 'semantics', 'annotation', 'mrow', 'mi', 'mn', 'mo', 'ms', 'mspace', 'mtext', 'msup', 'msub', 'msubsup',
  'mfrac', 'msqrt', 'mroot', 'mover', 'munder', 'munderover', 'mtable', 'mtr', 'mtd', 'mlabeledtr', 'mstyle',
  'mpadded', 'mphantom', 'menclose', 'mmultiscripts', 'mprescripts', 'none', 'merror',
] as const;

/** Plain elements a module may use around or beside its MathML (or for non-math output). */
export const PLAIN_TAGS = ['span', 'div', 'p', 'br', 'code', 'pre', 'sup', 'sub', 'strong', 'em', 'small', 'figure', 'figcaption'] as const;

export const ALLOWED_TAGS: readonly string[] = [...PLAIN_TAGS, ...MATHML_TAGS];

/** MathML's presentational attributes (MathML Core and what temml emits). */
export const MATHML_ATTRIBUTES = [
  'mathvariant', 'displaystyle', 'scriptlevel', 'stretchy', 'lspace', 'rspace', 'fence', 'separator', 'accent',
  'accentunder', 'width', 'height', 'depth', 'columnalign', 'rowalign', 'rowspacing', 'columnspacing', 'columnlines',
  'rowlines', 'frame', 'framespacing', 'encoding', 'display', 'minsize', 'maxsize', 'movablelimits', 'linethickness',
  'symmetric', 'largeop', 'notation', 'xmlns', 'voffset', 'form', 'align', 'columnspan', 'rowspan', 'dir',
  'mathcolor', 'mathbackground', 'mathsize',
] as const;

/** Attributes on any allowed element. */
export const GLOBAL_ATTRIBUTES = ['class', 'title', 'lang', 'dir', 'aria-label', 'aria-hidden', 'role'] as const;

export const ALLOWED_ATTRIBUTES: readonly string[] = [...new Set<string>([...GLOBAL_ATTRIBUTES, ...MATHML_ATTRIBUTES])];
