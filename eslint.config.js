// @ts-check
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', '.astro/**', 'node_modules/**', '.node/**', 'data/**', 'tests/.tmp/**', 'bench/.tmp/**', 'test-results/**', 'playwright-report/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
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
