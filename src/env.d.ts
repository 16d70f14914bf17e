/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    runtime: import('./lib/server/runtime').Runtime;
    requestId: string;
    /** The request's path as the server routed it (for logs: a slow query names its route). */
    pathname?: string;
    /** Locale of the page: cookie `ba-lang`, else Accept-Language, else zh-cn. */
    locale: import('./lib/i18n').Locale;
    /** Locale of an API reply: header `think-lang`/`ba-lang` first, else `locale`. */
    apiLocale: import('./lib/i18n').Locale;
    theme: import('./lib/server/request-context').Theme;
    host: import('./lib/shared/hosts').HostContext;
    /** The logged-in member; null for visitors. */
    user: import('./lib/server/request-context').SessionUser | null;
    /** The session behind `user`: its member row, token family, whether it came by cookie, and what a stream needs to end with it. */
    session?: { row: import('./lib/server/account/users').UserRow; family: string; viaCookie: boolean; ref: import('./lib/server/auth/session-streams').SessionRef };
    /** An access token was sent but has expired (API calls answer 409). */
    tokenExpired?: boolean;
    route: import('./lib/shared/routes').RouteMatch | null;
    /** Filled by the `user-mount` route middleware on /user pages. */
    memberCenter?: import('./lib/server/route-middleware').MemberCenter;
    /** Set by a page that edits markdown (modules/editor.ts `pageEditor`): its layout writes the import map and the editor's stylesheet. */
    editorModule?: import('./lib/shared/module-client').EditorClient | null;
    /** Set by a page with a filled module slot (modules/slots.ts `pageSlot`): its layout writes the import map and these stylesheets. */
    moduleClient?: { styles: string[] };
    /** Set by a page whose HTML is the same for every visitor: tags that invalidate it. */
    cacheTags: import('./lib/server/cache-tags').CacheTag[] | null;
  }
}

declare namespace Astro {
  interface ClientDirectives {
    /** Hydrate on the first pointer press, focus, key press or touch inside the island (src/lib/client/directives/interact.ts). */
    'client:interact'?: boolean;
  }
}
