import type { ServerConfig } from '../env';

/** The site's public address for links printed outside a request: PUBLIC_URL, else SITE_DOMAIN, else localhost. */
export function siteOrigin(config: ServerConfig, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.PUBLIC_URL?.trim().replace(/\/+$/, '');
  if (explicit) return explicit;
  if (config.siteDomain) return `https://${config.siteDomain}`;
  return `http://localhost:${config.port}`;
}
