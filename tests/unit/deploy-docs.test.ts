// The nginx configuration the guides show is the file the proxy tests run behind, word for word.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const conf = readFileSync(join(ROOT, 'deploy/nginx/atrium.conf'), 'utf8');

describe('deploy/nginx/atrium.conf in the guides', () => {
  it.each(['README.md', 'docs/en/deploy/index.md', 'docs/zh-cn/deploy/index.md', 'docs/en/deploy/subdomains.md', 'docs/zh-cn/deploy/subdomains.md'])('%s shows it unchanged', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(text).toContain(`\`\`\`nginx\n${conf}\`\`\``);
  });

  it('appends to X-Forwarded-For and says the scheme, as TRUST_PROXY=1 expects', () => {
    expect(conf).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
    expect(conf).toContain('proxy_set_header X-Forwarded-Proto $scheme;');
    expect(conf).toContain('proxy_set_header Host $host;');
  });
});
