// axe-core, run in the page under test: the WCAG 2.2 AA audit every spec uses.
// axe's script is put into a document once (and into each of its frames), and only the violations
// come back. @axe-core/playwright's AxeBuilder put axe's ~600 KB script into the page on every call,
// finished each run in a new blank page where it put the script again, and sent back every rule's
// passes too: 2–3 s a call on this 2-core machine against 0.2–0.6 s here, for the same rules and
// the same findings (CONTRIBUTING.md, "Tests").
import axe from 'axe-core';
import type { Frame, Page } from '@playwright/test';

/** WCAG 2.0, 2.1 and 2.2, levels A and AA. */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: { target: string; summary: string }[];
}

/** Puts axe into a frame that does not have it yet (each navigation starts a document without it). */
async function ensureAxe(frame: Frame): Promise<void> {
  if (await frame.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object')) return;
  await frame.evaluate(axe.source);
}

/**
 * The violations axe finds on the page as it is now: the WCAG A/AA rules, or only `rules`.
 * A frame that cannot be reached (another origin, gone) is left to axe, which reports what it could
 * not test as incomplete, not as a pass or a violation.
 */
export async function axeViolations(page: Page, rules?: readonly string[]): Promise<Violation[]> {
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) await ensureAxe(frame);
    else await ensureAxe(frame).catch(() => undefined);
  }
  const runOnly = rules ? { type: 'rule' as const, values: [...rules] } : { type: 'tag' as const, values: WCAG_TAGS };
  return page.evaluate(async (options) => {
    const found = await (window as unknown as { axe: typeof axe }).axe.run(document, options);
    return found.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? '',
      help: v.help,
      nodes: v.nodes.map((n) => ({
        target: n.target.map((t) => (Array.isArray(t) ? t.join(' >>> ') : String(t))).join(' '),
        summary: n.failureSummary ?? '',
      })),
    }));
  }, { runOnly, resultTypes: ['violations'] as axe.resultGroups[] });
}

/** One line per violation, for an assertion that expects none: the rule and the elements it names. */
export function describeViolations(found: readonly Violation[]): string[] {
  return found.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target).join(' | ')}`);
}
