// The fills of a slot on this instance: each active module whose manifest puts a client component
// there (`contributes.slots`), with its entry's hashed URL. A page asks for its slots before its
// layout renders (`pageSlot`), which marks the page so the layout writes the import map and the
// modules' stylesheets; a page whose slots are empty keeps its bytes.
import type { Locale } from '../../i18n';
import type { SlotFill, SlotName } from '../../shared/module-slots';
import type { ActiveModule } from './active';
import { assetUrl } from './assets';

/** Pixels reserved for a component whose manifest names no height. */
const DEFAULT_HEIGHT = 48;

/** The components active modules mount in `slot`, in the modules' order (by uid). */
export function slotFills(active: readonly ActiveModule[], slot: SlotName, locale: Locale): SlotFill[] {
  const fills: SlotFill[] = [];
  for (const m of [...active].sort((a, b) => a.uid.localeCompare(b.uid))) {
    const client = m.manifest.entry.client;
    if (!client) continue;
    for (const s of m.manifest.contributes.slots ?? []) {
      if (s.slot !== slot) continue;
      fills.push({ uid: m.uid, version: m.version, url: assetUrl(m, client), component: s.component, height: s.height ?? DEFAULT_HEIGHT, label: m.manifest.name[locale] });
    }
  }
  return fills;
}

/** The stylesheets of the modules filling a page's slots (their `entry.css`). */
function slotStyles(active: readonly ActiveModule[], fills: readonly SlotFill[]): string[] {
  const uids = new Set(fills.map((f) => f.uid));
  return active.filter((m) => uids.has(m.uid) && m.manifest.entry.css).map((m) => assetUrl(m, m.manifest.entry.css!));
}

/**
 * A page's slot: its fills, and when there are some, the page marked (`locals.moduleClient`) so its
 * layout writes the import map and the stylesheets in its head. Call it in the page's frontmatter.
 * `uid`: only that module's fills (a module's own member-center page).
 */
export function pageSlot(locals: Pick<App.Locals, 'runtime' | 'locale' | 'moduleClient'>, slot: SlotName, uid?: string): SlotFill[] {
  const active = locals.runtime.modules.list();
  const fills = slotFills(active, slot, locals.locale).filter((f) => uid === undefined || f.uid === uid);
  if (fills.length > 0) {
    const styles = new Set(locals.moduleClient?.styles ?? []);
    for (const href of slotStyles(active, fills)) styles.add(href);
    locals.moduleClient = { styles: [...styles] };
  }
  return fills;
}

/**
 * The running modules that have a member-center page (`user.page` components, at `/user/m/{uid}`),
 * named in `locale`: the member-center menu lists them, derived on every request from what runs,
 * so a module disabled or uninstalled leaves no menu entry behind (there is no rule row to clean).
 */
export function memberModulePages(active: readonly ActiveModule[], locale: Locale): { uid: string; label: string }[] {
  const seen = new Map<string, string>();
  for (const fill of slotFills(active, 'user.page', locale)) if (!seen.has(fill.uid)) seen.set(fill.uid, fill.label);
  return [...seen].map(([uid, label]) => ({ uid, label }));
}
