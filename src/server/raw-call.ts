// What the checks every raw route shares found (src/server/raw-routes.ts answerRaw), handed to its handler.
import type { Runtime } from '../lib/server/runtime';
import type { RequestBasics } from '../lib/server/request-context';
import type { RequestSession } from '../lib/server/pipeline/checks';
import type { Locale } from '../lib/i18n';

export interface RawCall {
  runtime: Runtime;
  basics: RequestBasics;
  /** A request header as the web `Headers.get` gives it. */
  header: (name: string) => string | null;
  /** The reply's language (`think-lang`, else the page's). */
  locale: Locale;
  session: RequestSession;
  /** The caller's address (behind trusted proxies, the one they saw). */
  address: string;
}
