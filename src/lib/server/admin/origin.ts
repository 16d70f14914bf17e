import type { ServerConfig } from '../env';

/** The site's public address for links made outside a request (setup link, reset links, mails): SITE_URL, else SITE_DOMAIN, else localhost. */
export function siteOrigin(config: Pick<ServerConfig, 'siteUrl' | 'siteDomain' | 'port'>): string {
  if (config.siteUrl) return config.siteUrl;
  if (config.siteDomain) return `https://${config.siteDomain}`;
  return `http://localhost:${config.port || 4321}`;
}
