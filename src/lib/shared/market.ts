// Market constants shared by the server, the pages and the islands.

/** Module categories; titles are `modules.category.{id}` in the `modules` dictionary. */
export const MODULE_CATEGORIES = ['editor', 'content', 'community', 'commerce', 'storage', 'ai', 'tools', 'theme'] as const;
export type ModuleCategory = (typeof MODULE_CATEGORIES)[number];

export const MODULE_STATUSES = ['draft', 'review', 'published', 'delisted'] as const;
export type ModuleStatus = (typeof MODULE_STATUSES)[number];

/** Module uids: lower-case letter first, then letters, digits and dashes (used in URLs and installs). */
export const MODULE_UID = /^[a-z][a-z0-9-]{1,39}$/;

/** Semantic versions as packages are numbered: 1.2.3, optionally -beta.1. */
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/;

/** A purchase includes one year of updates (BuildAdmin's store: the same). */
export const UPDATE_SECONDS = 365 * 86_400;

/** Default platform commission in percent (config `market_commission`); JetBrains takes 15 %. */
export const DEFAULT_COMMISSION = 15;

/** Compares two semantic versions; pre-releases sort before their release. */
export function compareVersions(a: string, b: string): number {
  const [ca, pa = ''] = a.split('-', 2) as [string, string?];
  const [cb, pb = ''] = b.split('-', 2) as [string, string?];
  const na = ca.split('.').map(Number);
  const nb = cb.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (na[i] ?? 0) - (nb[i] ?? 0);
    if (d) return d;
  }
  if (pa === pb) return 0;
  if (!pa) return 1;
  if (!pb) return -1;
  return pa < pb ? -1 : 1;
}
