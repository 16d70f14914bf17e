import type { APIRoute } from 'astro';
import { askFeed, publicOrigin } from '../../lib/server/seo/sitemap';
import { siteChrome } from '../../lib/server/site/chrome';
import { siteWide } from '../../lib/server/site/cache-tags';
import { askArea } from '../../lib/server/ask/cache-tags';

/** RSS of the newest published forum posts; channel texts in the request's language. */
export const GET: APIRoute = async ({ locals, request, url, clientAddress }) => {
  const { runtime, locale, host } = locals;
  const origin = publicOrigin(url, request.headers, host, runtime.config, clientAddress);
  const { siteName } = await siteChrome(runtime.site, locale, host);
  const body = await askFeed(runtime.db, { locale, origin, siteName });
  locals.cacheTags = [siteWide, askArea];
  return new Response(body, { headers: { 'content-type': 'application/rss+xml; charset=utf-8' } });
};
