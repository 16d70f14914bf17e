// Which of the site's own built files (dist/, leaving out dist/modules: the packages) contain any of
// some marker strings: tests that a module's code reaches a site only through its package.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Scans dist's scripts, pages and (with `css`) stylesheets; returns how many files were read and the hits. */
export function scanSiteBundles(dist: string, markers: readonly string[], extensions = /\.(?:m?js|html)$/): { scanned: number; hits: string[] } {
  let scanned = 0;
  const hits: string[] = [];
  const scan = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        if (full !== join(dist, 'modules')) scan(full);
      } else if (extensions.test(entry.name) && statSync(full).size > 0) {
        const text = readFileSync(full, 'utf8');
        scanned++;
        for (const m of markers) if (text.includes(m)) hits.push(`${full}: ${m}`);
      }
    }
  };
  scan(dist);
  return { scanned, hits };
}
