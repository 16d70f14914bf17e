// @ts-check
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import atrium from './scripts/lint/import-cycle.js';

// The arrows of src/lib/server (CONTRIBUTING.md, "Arrows point down"): core files never import an
// area; only boot/ (runtime creation, seeding) and src/server import every area. Every folder of
// lib/server but db/ and boot/ is an area; every file at its top is core except runtime.ts (the
// Runtime type, which names the services it carries) and the two that compose areas for the server.
const NOT_CORE = ['runtime.ts', 'metrics.ts', 'route-middleware.ts'];

/**
 * The import rules of src/ (tests/unit/import-rules.test.ts lints fixtures with the same function).
 * @returns {import('eslint').Linter.Config}
 */
export function importRules(base = 'src', basePath = process.cwd()) {
  const server = `${base}/lib/server`;
  const entries = readdirSync(resolve(basePath, server), { withFileTypes: true });
  const AREAS = entries.filter((e) => e.isDirectory() && e.name !== 'db' && e.name !== 'boot').map((e) => e.name);
  const CORE = ['db/**', ...entries.filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !NOT_CORE.includes(e.name)).map((e) => e.name)];
  return {
    plugins: { 'import-x': importX, atrium },
    settings: {
      // Without these import-x reads only .js files and its rules pass TypeScript by silently.
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ alwaysTryTypes: true })],
    },
    rules: {
      // Cycles: atrium/import-cycle, not import-x/no-cycle, which skips type-only imports (all of the
      // cycles this rule removed went through one) and costs ten times the CPU (~10 s of a ~17 s lint).
      'atrium/import-cycle': 'error',
      'import-x/no-restricted-paths': ['error', {
        basePath,
        zones: [
          {
            target: CORE.map((c) => `./${server}/${c}`),
            from: AREAS.map((a) => `./${server}/${a}/**`),
            message: 'A core file of lib/server never imports an area: pass what it needs in, or register it from boot/.',
          },
          {
            // The Runtime type names the services it carries; nothing else of an area.
            target: `./${server}/runtime.ts`,
            from: AREAS.map((a) => `./${server}/${a}/**`),
            except: [`${resolve(basePath, server)}/{auth/session-cache,mail/mailer,site/config,site/rules,modules/active}.ts`],
            message: 'runtime.ts holds the Runtime type: creating it (and anything that imports areas) lives in boot/.',
          },
          {
            target: [
              ...['shared', 'client', 'i18n', 'markdown'].map((d) => `./${base}/lib/${d}/**`),
              ...[...AREAS.map((a) => `${a}/**`), ...CORE, 'runtime.ts'].map((f) => `./${server}/${f}`),
              ...['islands', 'components', 'layouts', 'pages'].map((d) => `./${base}/${d}/**`),
            ],
            from: `./${server}/boot/**`,
            message: 'boot/ sits above every area: only src/server and the middleware start the runtime.',
          },
          { target: `./${base}/lib/**`, from: `./${base}/server/**`, message: 'src/lib never imports the Node server in src/server.' },
          {
            target: ['shared', 'i18n', 'markdown'].map((d) => `./${base}/lib/${d}/**`),
            from: `./${server}/**`,
            message: 'lib/shared, lib/i18n and lib/markdown sit below lib/server: they never import it.',
          },
        ],
      }],
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', '.astro/**', 'node_modules/**', '.node/**', 'data/**', 'tests/.tmp/**', 'bench/.tmp/**', 'test-results/**', 'playwright-report/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['src/**/*.{ts,tsx,mts,js,mjs}'], ...importRules() },
  {
    // Islands and browser code run in the visitor's browser: database, secrets and the file
    // system stay on the server (conventions: Boundaries).
    files: ['src/islands/**', 'src/lib/client/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/lib/server/**', '**/lib/server', '~/lib/server/**'], message: 'Server code (database, secrets, filesystem) must not be imported by islands or client code.' },
          { group: ['node:*', 'pg', 'ioredis', '@electric-sql/pglite', 'drizzle-orm', 'drizzle-orm/*'], message: 'Node and database modules cannot run in the browser.' },
        ],
      }],
    },
  },
);
