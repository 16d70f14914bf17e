import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
  '.avif': 'image/avif', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.woff': 'font/woff', '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8', '.webmanifest': 'application/manifest+json', '.map': 'application/json',
};

export interface StaticFile {
  type: string;
  body: Buffer;
  br: Buffer | null;
  gzip: Buffer | null;
  etag: string;
  cacheControl: string;
}

/**
 * The built client files, read into memory once at start (they are small and never change while
 * the process runs). Hashed assets under /_astro are immutable; `.br`/`.gz` siblings written by
 * the build are served to clients that accept them.
 */
export function loadStaticFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) { walk(full); continue; }
      if (entry.name.endsWith('.br') || entry.name.endsWith('.gz')) continue;
      const urlPath = `/${relative(dir, full).split(sep).join('/')}`;
      const body = readFileSync(full);
      const sibling = (ext: string): Buffer | null => (existsSync(full + ext) && statSync(full + ext).size < body.length ? readFileSync(full + ext) : null);
      files.set(urlPath, {
        type: TYPES[extname(entry.name).toLowerCase()] ?? 'application/octet-stream',
        body,
        br: sibling('.br'),
        gzip: sibling('.gz'),
        etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`,
        cacheControl: urlPath.startsWith('/_astro/')
          ? 'public, max-age=31536000, immutable'
          : urlPath === '/build-manifest.json' ? 'no-store' : 'public, max-age=0, must-revalidate',
      });
    }
  };
  walk(dir);
  return files;
}
