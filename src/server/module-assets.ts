import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { resolveAsset } from '../lib/server/modules/assets';
import { shimAt } from '../lib/server/modules/client-shims';
import type { Runtime } from '../lib/server/runtime';

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
};

/**
 * Answers `/_modules/{uid}/{version}-{hash}/{file}` with a public file of an active module, and
 * `/_modules/_site/{hash}/{file}` with what the page's import map gives module code (React, the
 * client SDK: client-shims.ts): their URLs change with their content, so they are cached for a
 * year. Anything else under the prefix is 404.
 */
export async function serveModuleAsset(req: IncomingMessage, res: ServerResponse, runtime: Pick<Runtime, 'modules'>, pathname: string): Promise<void> {
  const shim = shimAt(pathname);
  const found = shim ? null : resolveAsset(runtime.modules.list(), pathname);
  const type = shim ? TYPES.mjs : found ? TYPES[found.file.slice(found.file.lastIndexOf('.') + 1)] : undefined;
  const body = shim ?? (found && type ? await readFile(join(found.module.packageDir, found.file)).catch(() => null) : null);
  if (!body || !type) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(req.method === 'HEAD' ? undefined : 'Not found');
    return;
  }
  res.writeHead(200, {
    'content-type': type, 'content-length': body.length, 'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff', 'cross-origin-resource-policy': 'same-origin',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
