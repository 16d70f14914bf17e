import type { APIRoute } from 'astro';
import { robotsTxt } from '../lib/server/seo/feeds';
import { absoluteUrl, publicOrigin } from '../lib/server/seo/sitemap';
import { siteWide } from '../lib/server/site/cache-tags';

// Every host answers /robots.txt itself (a shared path) and names the one sitemap on the main
// domain, which is what lets that sitemap list the subdomains' URLs (sitemaps.org cross-submission).
export const GET: APIRoute = ({ locals, request, url, clientAddress }) => {
  const origin = publicOrigin(url, request.headers, locals.host, locals.runtime.config, clientAddress);
  locals.cacheTags = [siteWide];
  return new Response(robotsTxt(absoluteUrl('/sitemap.xml', origin)), { headers: { 'content-type': 'text/plain; charset=utf-8' } });
};
