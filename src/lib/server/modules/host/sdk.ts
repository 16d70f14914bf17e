// What a module's server code sees. A module's server entry default-exports `defineModule({...})`
// (or the same object without the helper); it runs in its own host process under Node's permission
// model: it may read its package folder and read/write its data folder (its working directory),
// and it may not start processes or workers. Its data lives in `ctx.store`, scoped to the module.
// This file has no imports from the site at run time: a module copies or bundles `defineModule`.
import type { JsonValue, MarkdownItem, RenderContext, RouteRequest, RouteResponse } from './types';

export type { JsonValue, MarkdownItem, RenderContext, RouteRequest, RouteResponse } from './types';

/** The module's own key-value store, kept by the site (keys ≤ 200 chars, values JSON ≤ 64 KB). */
export interface ModuleStore {
  get(key: string): Promise<JsonValue | null>;
  set(key: string, value: JsonValue): Promise<void>;
  /** True when the key existed. */
  delete(key: string): Promise<boolean>;
  /** Keys starting with `prefix` in key order (at most 1000). */
  list(prefix?: string): Promise<{ key: string; value: JsonValue }[]>;
}

/** Given to every hook and route. */
export interface ModuleContext {
  uid: string;
  version: string;
  store: ModuleStore;
  /**
   * The module's settings (`contributes.settings`) as the administrator set them, each key present
   * (the manifest's default when never set; a secret never set is ""). Read-only; a change reaches
   * the next call on every instance.
   */
  settings: Readonly<Record<string, JsonValue>>;
  /** The language of the request (`zh-cn` or `en`); the site's default for events and jobs. */
  locale: string;
  /** The module's string `key` (`contributes.i18n`) in `locale` (English, then the key, when missing), `{name}` filled from `values`. */
  t(key: string, values?: Record<string, string | number>): string;
}

export interface ModuleHooks {
  /** Turns markdown source (or rendered HTML, per the contribution) into HTML; must return a string. */
  render?(src: string, ctx: RenderContext & ModuleContext): string | Promise<string>;
  /**
   * The HTML of each span of markdown the module claimed (the syntax declared in
   * `contributes.markdown`), one string per item, in order. Called once per document when it is
   * written or re-rendered, never when it is read. The site passes the result through its allow-list
   * sanitiser (MathML, and `class` on a few plain elements: no styles, no scripts, no links).
   */
  markdown?(items: MarkdownItem[], ctx: RenderContext & ModuleContext): string[] | Promise<string[]>;
  /** A site event delivered after commit (post created, order paid…). */
  onEvent?(name: string, payload: unknown, ctx: ModuleContext): void | Promise<void>;
  /**
   * A scheduled job (`contributes.jobs`) is due: run once per interval across all of the site's
   * instances, within the job's timeout. Throwing records the failure for administrators; the job
   * runs again at its next interval.
   */
  onJob?(name: string, ctx: ModuleContext): void | Promise<void>;
}

/** Routes under `/api/m/{uid}`, keyed `"GET /path"`; a result without status answers 200. */
export type ModuleRoutes = Record<string, (req: RouteRequest, ctx: ModuleContext) => Partial<RouteResponse> | Promise<Partial<RouteResponse>>>;

export interface ModuleDefinition {
  hooks?: ModuleHooks;
  routes?: ModuleRoutes;
}

/** Declares a module's server side (an identity function that gives the object its types). */
export function defineModule<T extends ModuleDefinition>(definition: T): T {
  return definition;
}
