// The site's cache tags (see cache-tags.ts): what every page shows, the configuration, the rules.

declare module '../cache-tags' {
  interface CacheTagKinds {
    site: 'site';
    siteConfig: 'site:config';
    siteRules: 'site:rules';
  }
}

/** Every cached page: its frame (site name, menus, footer, settings) is built from the configuration. */
export const siteWide = 'site';
/** The configuration rows kept in memory (site/config.ts ConfigStore). */
export const siteConfig = 'site:config';
/** The rule trees of the member groups kept in memory (site/rules.ts RulesCache). */
export const siteRules = 'site:rules';
