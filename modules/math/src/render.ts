// TeX to MathML with temml, shared by the server hook and the browser half so the preview shows
// what will be posted. The site's sanitiser admits no `style` attribute, so the inline styles temml
// sets are turned into what survives it before the markup is written: a colour becomes MathML's
// `mathcolor`, the layouts that matter (array rules, boxes, cell padding of aligned/cases, full-width
// numbered equations, accent depth) become classes that style.css defines, and the rest (negative
// thin spaces, the LaTeX logo's kerning) is dropped. A formula temml cannot parse renders as its
// error element (the source and the message); a failure inside temml, as the escaped source.
import temml from 'temml';
import type { MarkdownItem } from '../../sdk';

/** Set at build time for a package that must render visibly differently (tests of upgrades). */
declare const __MATH_EXTRA_CLASS__: string | undefined;
const EXTRA_CLASS = typeof __MATH_EXTRA_CLASS__ === 'string' ? __MATH_EXTRA_CLASS__ : '';

/** What temml's MathML tree nodes carry (its `MathNode`, its error `Span`, its text nodes). */
interface TreeNode {
  type?: string;
  attributes?: Record<string, string>;
  classes?: string[];
  style?: Record<string, string>;
  children?: ArrayLike<TreeNode>;
}

const OPTIONS = {
  throwOnError: false,
  // No \href, \url, \class, \style, \htmlData: nothing that reaches outside the formula.
  trust: false,
  strict: false,
  // \rule and spaces at most 40 em; a macro may expand 1000 times (a self-referencing one stops).
  maxSize: [40, 40] as [number, number],
  maxExpand: 1000,
  errorColor: '#b22222',
};

const SIDES: Record<string, string> = { borderTop: 't', borderRight: 'r', borderBottom: 'b', borderLeft: 'l' };

/** The class for a cell's side padding temml computed, or null to keep the browser's default. */
function padClass(side: 'l' | 'r', value: string): string | null {
  const m = /^(-?[\d.]+)(em|pt|ex)?$/.exec(value.trim());
  if (!m) return null;
  const n = Number(m[1]);
  if (n === 0) return `math-p${side}0`;
  if (m[2] === 'em' && n === 1) return `math-p${side}1`;
  // An array's column separation (\arraycolsep, 5pt at 12pt size).
  if (m[2] === 'pt') return `math-p${side}c`;
  return null;
}

/** Moves a node's inline style into attributes and classes the sanitiser keeps; recurses. */
function unstyle(node: TreeNode): void {
  const { attributes, classes } = node;
  let style = node.style;
  if (attributes) {
    // A few builders write the attribute itself (\pmb: font-weight:bold; \sideset: text-align: left).
    if (attributes.style && classes) {
      style = { ...style };
      for (const decl of attributes.style.split(';')) {
        const [prop, ...rest] = decl.split(':');
        if (prop?.trim() && rest.length) style[prop.trim().replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = rest.join(':').trim();
      }
    }
    delete attributes.style;
    delete attributes.id;
    delete attributes.href;
  }
  if (style && classes) {
    const add = (c: string | null): void => {
      if (c && !classes.includes(c)) classes.push(c);
    };
    for (const [key, raw] of Object.entries(style)) {
      const value = String(raw);
      if (key === 'color') {
        // A MathML element takes `mathcolor`; temml's error <span> (no type) is coloured by style.css.
        if (attributes && typeof node.type === 'string') attributes.mathcolor = value;
      } else if (key in SIDES) {
        add(`math-b${SIDES[key]}${value.includes('dashed') ? '-dashed' : ''}`);
      } else if (key === 'border') {
        add('math-box');
      } else if (key === 'padding' && value === '0.3em') {
        add('math-pad');
      } else if (key === 'padding' && /^0(?:em|pt)?$/.test(value)) {
        add('math-p0');
      } else if (key === 'paddingLeft' || key === 'paddingRight') {
        if (node.type === 'mtd') add(padClass(key === 'paddingLeft' ? 'l' : 'r', value));
      } else if (key === 'width') {
        if (value === '100%') add('math-w100');
        else if (value === '50%') add('math-w50');
      } else if (key === 'textAlign' && value === 'left') {
        add('tml-left');
      } else if (key === 'fontWeight' && value === 'bold') {
        add('math-bold');
      } else if (key === 'mathDepth' && /^[0-3]$/.test(value)) {
        add(`math-d${value}`);
      }
    }
    node.style = {};
  }
  // Children are an array, or array-like (temml walks them by index).
  const kids = node.children as ArrayLike<TreeNode> | undefined;
  if (kids && typeof kids === 'object' && typeof kids.length === 'number') {
    for (let i = 0; i < kids.length; i++) if (kids[i] && typeof kids[i] === 'object') unstyle(kids[i]!);
  }
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** One span as MathML (display mode for blocks and fences); never throws. */
export function renderItem(item: MarkdownItem): string {
  const src = String(item.src);
  try {
    const tree = temml.__renderToMathMLTree(src, { ...OPTIONS, displayMode: item.kind !== 'inline' }) as TreeNode;
    unstyle(tree);
    if (EXTRA_CLASS && tree.type === 'math' && tree.classes) tree.classes.push(EXTRA_CLASS);
    return (tree as unknown as { toMarkup(): string }).toMarkup();
  } catch {
    return `<span class="temml-error">${escapeHtml(src)}</span>`;
  }
}

/** The hook's body: one HTML string per item, in order. */
export function renderItems(items: readonly MarkdownItem[]): string[] {
  return items.map(renderItem);
}
