// The import rules of eslint.config.js (no cycle, type-only imports included; core files never
// import an area; lib never imports src/server; shared code never imports lib/server; nothing but
// src/server and the middleware imports boot/), run with ESLint's Node API on a small fixture tree
// that breaks each of them once, and checked to apply to src/ in the repository's own config.
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { importRules } from '../../eslint.config.js';
import { scaled } from '../helpers/time-scale.mjs';

const REPO = join(import.meta.dirname, '../..');
const FIXTURE = join(REPO, 'tests/fixtures/import-rules');

describe('import rules', () => {
  it('report every cycle and every forbidden arrow of the fixture, and nothing else', { timeout: scaled(60_000) }, async () => {
    const eslint = new ESLint({
      cwd: FIXTURE,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
        { files: ['src/**/*.ts'], ...importRules('src', FIXTURE) },
      ],
    });
    const results = await eslint.lintFiles(['src/**/*.ts']);
    const found = results.flatMap((r) => r.messages.map((m) => `${relative(FIXTURE, r.filePath)}:${m.line} ${m.ruleId}`)).sort();
    expect(found).toEqual([
      // The value cycle (ask/answers.ts ↔ ask/tags.ts) and the type-only one (log.ts ↔ env.ts).
      'src/lib/server/ask/answers.ts:3 import-x/no-restricted-paths', // → src/server
      'src/lib/server/ask/answers.ts:4 import-x/no-restricted-paths', // → boot/
      'src/lib/server/ask/answers.ts:5 atrium/import-cycle',
      'src/lib/server/ask/tags.ts:2 atrium/import-cycle',
      'src/lib/server/env.ts:2 atrium/import-cycle',
      'src/lib/server/http.ts:2 import-x/no-restricted-paths', // core → area
      'src/lib/server/log.ts:2 atrium/import-cycle',
      'src/lib/server/runtime.ts:3 import-x/no-restricted-paths', // runtime.ts → an area file it does not carry
      'src/lib/shared/format.ts:2 import-x/no-restricted-paths', // shared → lib/server
    ]);
    const cycle = results.find((r) => r.filePath.endsWith('log.ts'))!.messages[0]!.message;
    expect(cycle).toBe('Import cycle (type-only imports count): src/lib/server/log.ts → src/lib/server/env.ts → src/lib/server/log.ts');
  });

  it('apply to every source file of the repository', { timeout: scaled(60_000) }, async () => {
    const eslint = new ESLint({ cwd: REPO });
    for (const file of ['src/lib/server/http.ts', 'src/lib/server/ask/posts.ts', 'src/lib/shared/codes.ts', 'src/server/app.ts', 'src/middleware.ts']) {
      const { rules } = await eslint.calculateConfigForFile(join(REPO, file)) as { rules: Record<string, [number, ...unknown[]]> };
      expect(rules['atrium/import-cycle']?.[0], file).toBe(2);
      expect(rules['import-x/no-restricted-paths']?.[0], file).toBe(2);
    }
  });
});
