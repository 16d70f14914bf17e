import type { APIRoute } from 'astro';
import { publicOrigin, siteSitemapFile, sitemapTags } from '../../lib/server/seo/sitemap';

/** One file of the sitemap index, e.g. /sitemap/ask-posts-2.xml; unknown or empty files are not found. */
export const GET: APIRoute = async ({ locals, params, request, url, clientAddress }) => {
  const origin = publicOrigin(url, request.headers, locals.host, locals.runtime.config, clientAddress);
  const body = await siteSitemapFile(locals.runtime.db, origin, params.file ?? '');
  if (body === null) return new Response(null, { status: 404 });
  locals.cacheTags = sitemapTags();
  return new Response(body, { headers: { 'content-type': 'application/xml; charset=utf-8' } });
};
