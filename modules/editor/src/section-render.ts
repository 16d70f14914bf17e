// The live preview of a long page re-renders only the section that changed: the source is cut at
// top-level ATX headings (never inside a fence or a callout), each section's HTML is kept by its
// text, and the page is the sections joined. A heading always ends the paragraph or list before
// it, so the joined HTML is what one render of the whole text gives, except for what crosses
// headings: reference-style link definitions (the page is then rendered whole) and duplicate
// heading ids (the preview has no links to them).

const HEADING = /^ {0,3}#{1,6}(?:\s|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CALLOUT_OPEN = /^ {0,3}:::\s*\w/;
const CALLOUT_CLOSE = /^ {0,3}:::\s*$/;
const REFERENCE = /^ {0,3}\[[^\]\n]+\]:\s*\S/m;

/** Cuts markdown before every top-level heading outside fences and callouts. */
export function splitSections(source: string): string[] {
  const lines = source.split('\n');
  const sections: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  let callouts = 0;
  for (const line of lines) {
    const f = FENCE.exec(line);
    if (f) {
      if (fence === null) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
    } else if (fence === null) {
      if (CALLOUT_OPEN.test(line)) callouts++;
      else if (CALLOUT_CLOSE.test(line) && callouts > 0) callouts--;
      else if (callouts === 0 && HEADING.test(line) && current.length) {
        sections.push(current.join('\n'));
        current = [];
      }
    }
    current.push(line);
  }
  sections.push(current.join('\n'));
  return sections;
}

/** Renders markdown section by section, reusing the HTML of sections whose text did not change. */
export function createSectionRenderer(render: (markdown: string) => string): (source: string) => string {
  let cache = new Map<string, string>();
  return (source) => {
    if (REFERENCE.test(source)) return render(source);
    const next = new Map<string, string>();
    const html = splitSections(source).map((section) => {
      const done = next.get(section) ?? cache.get(section) ?? render(section);
      next.set(section, done);
      return done;
    }).join('');
    cache = next;
    return html;
  };
}
