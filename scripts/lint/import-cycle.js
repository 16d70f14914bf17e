// @ts-check
// ESLint rule `atrium/import-cycle`: an import that leads back to the importing file, counting
// type-only imports too (import-x/no-cycle skips them, yet a type cycle still tells a reader that
// the bottom of the house knows the top). The graph is the repository's own files: relative
// specifiers and `~/` (tsconfig's alias for src/), resolved the way TypeScript does.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const TRIES = ['', '.ts', '.tsx', '.mts', '.js', '.mjs', '.astro', '/index.ts', '/index.tsx', '/index.js'];

/** @type {Map<string, { mtime: number; checked: number; deps: string[] }>} */
const parsed = new Map();
/** A file's imports are read again when it changed, looked at most once a second (an editor's server lives long). */
const RECHECK_MS = 1000;

/** @param {string} p */
function isFile(p) {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** @param {string} from @param {string} spec @param {string} root */
function resolveSpec(from, spec, root) {
  let base;
  if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') base = resolve(dirname(from), spec);
  else if (spec.startsWith('~/')) base = join(root, 'src', spec.slice(2));
  else return null;
  const bare = base.replace(/\?.*$/, '');
  for (const candidate of [bare, bare.replace(/\.(m?)js$/, '.$1ts'), bare.replace(/\.js$/, '.tsx')]) {
    for (const ext of TRIES) if (isFile(candidate + ext)) return candidate + ext;
  }
  return null;
}

/** The code of a file that may import: an .astro file's frontmatter and scripts, any other file whole. */
/** @param {string} file @param {string} text */
function codeOf(file, text) {
  if (!file.endsWith('.astro')) return text;
  const front = /^\s*---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  const scripts = [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  return [front, ...scripts].join('\n');
}

/** Files `file` imports (static, type-only, re-exports and dynamic import()), resolved. */
/** @param {string} file @param {string} root @returns {string[]} */
function depsOf(file, root) {
  const known = parsed.get(file);
  const now = Date.now();
  if (known && now - known.checked < RECHECK_MS) return known.deps;
  let mtime;
  try {
    mtime = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  if (known && known.mtime === mtime) {
    known.checked = now;
    return known.deps;
  }
  const info = ts.preProcessFile(codeOf(file, readFileSync(file, 'utf8')), true, true);
  const deps = [...new Set(info.importedFiles.map((f) => resolveSpec(file, f.fileName, root)).filter((p) => p !== null))];
  parsed.set(file, { mtime, checked: now, deps });
  return deps;
}

/** Shortest path from `start` back to `goal` through the import graph, or null. */
/** @param {string} start @param {string} goal @param {string} root */
function pathBack(start, goal, root) {
  /** @type {Map<string, string | null>} */
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const at = /** @type {string} */ (queue.shift());
    for (const next of depsOf(at, root)) {
      if (next === goal) {
        const path = [at];
        for (let p = prev.get(at); p; p = prev.get(p)) path.unshift(p);
        return path;
      }
      if (!prev.has(next) && !next.includes('/node_modules/')) {
        prev.set(next, at);
        queue.push(next);
      }
    }
  }
  return null;
}

/** @type {import('eslint').Rule.RuleModule} */
export const importCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid an import (type-only ones included) that leads back to the importing file.' },
    schema: [],
    messages: { cycle: 'Import cycle (type-only imports count): {{path}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    const root = context.cwd;
    /** @param {import('estree').Node & { source?: import('estree').Node | null }} node */
    const check = (node) => {
      const source = node.source;
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const target = resolveSpec(file, source.value, root);
      if (!target || target === file) return;
      const back = pathBack(target, file, root);
      if (back) context.report({ node, messageId: 'cycle', data: { path: [file, ...back, file].map((p) => relative(root, p)).join(' → ') } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { 'import-cycle': importCycle } };
