// The member center's pages (/user/<path>) as a registry: one registration per page carries its
// path (also the name of the rule a group must hold to open it), its menu entry (seeded into the
// rule tree), its title key and the component that draws it. The route table, the seeded menu and
// the page (src/pages/user/[...path].astro) all read it, so adding a page touches its area only
// (src/lib/shared/member-pages/<area>.ts and the area's component). A module registers at run time.
import { registry } from './registry';

/** A folder of the member-center menu (a `menu_dir` rule). */
export interface MemberMenu {
  name: string;
  /** The seeded rule's title (zh-cn, as the rule tree shows it); the menu shows `user.menu.<name>`. */
  title: string;
  icon: string;
  /** Members do not hold the rule by default (an operator gives it to the groups they choose). */
  moderator?: boolean;
}

export interface MemberPage {
  /** /user/<path>; also the rule (user_rule name) a group must hold to open the page. */
  path: string;
  /** The menu folder it sits in (a registered MemberMenu); none: top level. */
  menu?: string;
  /** The seeded rule's title (zh-cn, as the rule tree shows it). */
  title: string;
  icon?: string;
  /** `menu` (a link in the member-center menu, the default) or `route` (a page without one). */
  kind?: 'menu' | 'route';
  /** Button rules seeded under the page's rule (permissions within the page). */
  buttons?: readonly { name: string; title: string; moderator?: boolean }[];
  /** Members do not hold the page's rule by default (an operator gives it to the groups they choose). */
  moderator?: boolean;
  /** i18n key (group `user`) of the page's title; `user.menu.<path>` when not given. */
  titleKey?: string;
  /** The view: a component under src/components, without `.astro` (e.g. `user/Overview`). */
  component?: string;
  /** Props the component is given. */
  props?: Readonly<Record<string, string | number | boolean>>;
  /** Wraps the view (a component under src/components that renders its slot, or not: a gate). */
  wrap?: string;
  /** The page moved: answered with a 302 to this path. */
  redirect?: string;
  /** The view edits markdown: the page loads the editor module when it is installed (its import map, its stylesheet). */
  editor?: boolean;
}

const menus = registry<MemberMenu>('member-menus', (m) => m.name);
const pages = registry<MemberPage>('member-pages', (p) => p.path);

export function registerMemberMenu(menu: MemberMenu): void {
  menus.add(menu);
}

/** Adds a page (a later registration of the same path replaces it). */
export function registerMemberPage(page: MemberPage): void {
  pages.add(page);
}

export function unregisterMemberPage(path: string): boolean {
  return pages.remove(path);
}

export function memberMenus(): MemberMenu[] {
  return menus.list();
}

/** Every page, in registration order. */
export function memberPages(): MemberPage[] {
  return pages.list();
}

export function findMemberPage(path: string): MemberPage | null {
  return pages.get(path) ?? null;
}

/** The rules of the member center that members do not hold by default. */
export function memberModeratorRules(): string[] {
  return [
    ...memberMenus().filter((m) => m.moderator).map((m) => m.name),
    ...memberPages().flatMap((p) => [...(p.moderator ? [p.path] : []), ...(p.buttons ?? []).filter((b) => b.moderator).map((b) => b.name)]),
  ];
}

export function memberPageTitleKey(page: MemberPage): string {
  return page.titleKey ?? `user.menu.${page.path}`;
}
