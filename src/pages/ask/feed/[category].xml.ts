import type { APIRoute } from 'astro';
import { askFeed, publicOrigin } from '../../../lib/server/seo/sitemap';
import { siteChrome } from '../../../lib/server/site/chrome';
import { siteWide } from '../../../lib/server/site/cache-tags';
import { askArea } from '../../../lib/server/ask/cache-tags';

/** RSS of one category's newest posts: /ask/feed/{slug}.xml; an unknown slug is not found. */
export const GET: APIRoute = async ({ locals, params, request, url, clientAddress }) => {
  const { runtime, locale, host } = locals;
  const origin = publicOrigin(url, request.headers, host, runtime.config, clientAddress);
  const { siteName } = await siteChrome(runtime.site, locale, host);
  const body = await askFeed(runtime.db, { locale, origin, siteName, category: params.category ?? '' });
  if (body === null) return new Response(null, { status: 404 });
  locals.cacheTags = [siteWide, askArea];
  return new Response(body, { headers: { 'content-type': 'application/rss+xml; charset=utf-8' } });
};
