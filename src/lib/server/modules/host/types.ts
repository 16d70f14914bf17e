// The module host's contract with the site: what a module to run looks like, the RPC methods it
// answers, the errors a call can end in and the key-value store the site provides. Shared by the
// parent side (host.ts, module-process.ts) and described for module authors in sdk.ts.

/** The hooks a module can declare; a call to an undeclared one is refused without starting a process. */
export type HookName = 'render' | 'markdown' | 'onEvent' | 'route' | 'onJob';

/** What the host needs to run one module (the manifest and installer produce it). */
export interface HostedModule {
  uid: string;
  version: string;
  /** Absolute path of the unpacked package: the only folder the module may read (besides its data). */
  packageDir: string;
  /** Absolute path of the module's data folder: the only folder it may write. Created on start. */
  dataDir: string;
  /** The server entry, relative to packageDir (e.g. `server/index.mjs`). */
  serverEntry: string;
  /** The hooks the manifest declares. */
  hooks: readonly HookName[];
}

/** What the site passes to a render hook besides the source (the store is added in the host). */
export interface RenderContext {
  /** Where the markdown comes from: post, reply, doc, chat, preview. */
  kind: string;
  locale: string;
}

/**
 * A span of markdown a module claimed with the syntax its manifest declares
 * (`contributes.markdown`): the text between the delimiters, or a fenced block's body.
 */
export interface MarkdownItem {
  /** `inline` (e.g. `$…$`), `block` (e.g. `$$…$$` on lines of their own) or `fence` (```` ```math ````). */
  kind: 'inline' | 'block' | 'fence';
  /** The text inside the delimiters, as typed (not escaped). */
  src: string;
}

export interface RouteRequest {
  method: string;
  /** Path under `/api/m/{uid}`, starting with `/`. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The signed-in member's id, or null. */
  memberId: number | null;
}

export interface RouteResponse {
  status: number;
  body: unknown;
}

/** The RPC methods: arguments and result of each, checked at compile time by `call`. */
export interface HostMethods {
  render: { args: [src: string, ctx: RenderContext]; result: string };
  /** One call per document: the HTML of each claimed span, in order (sanitised by the site). */
  markdown: { args: [items: MarkdownItem[], ctx: RenderContext]; result: string[] };
  onEvent: { args: [name: string, payload: unknown]; result: null };
  route: { args: [req: RouteRequest]; result: RouteResponse };
  /** A scheduled job's run (`contributes.jobs`), claimed once across the site's instances. */
  onJob: { args: [name: string]; result: null };
}

/**
 * What travels with every call besides its arguments: the module's settings as the administrator
 * set them (defaults filled in) and the language of the request, or the site's for events and jobs.
 */
export interface CallEnv {
  settings: Record<string, JsonValue>;
  locale: string;
}
export type HostMethod = keyof HostMethods;

/**
 * How a call can fail. `threw`: the module's code threw (the process lives on); `timeout`: no
 * answer within the budget (the process is killed); `crashed`: the process died or failed to load
 * during the call; `disabled`: too many crashes, or disabled by the site; `unknown-module` and
 * `not-declared`: refused before reaching a process.
 */
export type ModuleCallErrorKind = 'threw' | 'timeout' | 'crashed' | 'disabled' | 'unknown-module' | 'not-declared';

export class ModuleCallError extends Error {
  constructor(
    readonly kind: ModuleCallErrorKind,
    readonly uid: string,
    message: string,
  ) {
    super(message);
    this.name = 'ModuleCallError';
  }
}

export type ModuleState = 'stopped' | 'starting' | 'running' | 'disabled';

export interface ModuleStatus {
  uid: string;
  state: ModuleState;
  /** The running host's process id, or null. */
  pid: number | null;
  /** Crashes (and timeouts) inside the current window, oldest first. */
  recentFailures: { at: number; reason: string }[];
  /** Why the module is disabled, or null. */
  disabledReason: string | null;
  /** How many processes were started for it since registration. */
  starts: number;
}

/** A store operation a module asked for over the back-channel, as received (validated by kv.ts). */
export interface KvRequest {
  op: unknown;
  key?: unknown;
  value?: unknown;
  prefix?: unknown;
}

/** A JSON value as the store keeps it (jsonb). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Where modules' key-value data lives. The host scopes every operation by the uid of the process
 * that asked, so a module only ever sees its own keys.
 */
export interface KvBackend {
  get(uid: string, key: string): Promise<JsonValue | null>;
  set(uid: string, key: string, value: JsonValue): Promise<void>;
  delete(uid: string, key: string): Promise<boolean>;
  /** Keys starting with `prefix`, in key order, at most `limit`. */
  list(uid: string, prefix: string, limit: number): Promise<{ key: string; value: JsonValue }[]>;
}
