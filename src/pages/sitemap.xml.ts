import type { APIRoute } from 'astro';
import { publicOrigin, siteSitemap, sitemapTags } from '../lib/server/seo/sitemap';

/** The site's sitemap: a urlset while everything fits in one file, else an index of /sitemap/{source}-{n}.xml. */
export const GET: APIRoute = async ({ locals, request, url, clientAddress }) => {
  const origin = publicOrigin(url, request.headers, locals.host, locals.runtime.config, clientAddress);
  const body = await siteSitemap(locals.runtime.db, origin);
  locals.cacheTags = sitemapTags();
  return new Response(body, { headers: { 'content-type': 'application/xml; charset=utf-8' } });
};
