// The deployment files agree with each other, with the code and with the documents: the nginx
// configuration the in-app guide shows is the file the proxy tests run behind, word for word (the
// repository's documents link the file instead of copying it); its
// streaming locations are real routes (and every streaming route has one); the systemd unit, the
// Dockerfile and compose.yaml start the server the way scripts/start.mjs does, on the ports nginx
// names, with settings Atrium actually reads.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_ENV, SERVER_V8_FLAGS } from '../../src/server/v8-flags';
import { STREAM_PATH } from '../../src/server/stream';
import { exposedTrustProblem, parseTrustProxy } from '../../src/lib/server/proxy';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const conf = read('deploy/nginx/atrium.conf');
const unit = read('deploy/systemd/atrium@.service');
const dockerfile = read('deploy/Dockerfile');
const compose = read('deploy/compose.yaml');
const readme = read('README.md');
const configuration = read('docs/operators/configuration.md');

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

/**
 * Every environment variable the server reads: `env.X`, `process.env.X`, `env['X']` anywhere under
 * src/, and the names the cloud-upload settings look up in pairs (`e('S3_BUCKET', 'COS_BUCKET')`).
 */
const READ_NAMES = new Set(files('src').filter((f) => /\.(ts|mjs)$/.test(f)).flatMap((f) => {
  const text = read(f);
  return [
    ...[...text.matchAll(/\b(?:env|process\.env)\.([A-Z][A-Z0-9_]+)/g), ...text.matchAll(/\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g)].map((m) => m[1]!),
    ...[...text.matchAll(/\be\('([A-Z][A-Z0-9_]+)', '([A-Z][A-Z0-9_]+)'\)/g)].flatMap((m) => [m[1]!, m[2]!]),
  ];
}));

/** `location = /api/...` blocks of the conf and their bodies. */
const exactLocations = [...conf.matchAll(/location = (\S+) \{([^}]*)\}/g)].map((m) => ({ path: m[1]!, body: m[2]! }));
const streaming = exactLocations.filter((l) => /proxy_buffering off;/.test(l.body));

/** The /api route a page file answers (`src/pages/api/chat/send.ts` → `/api/chat/send`). */
const routeOf = (file: string): string => `/${relative(join('src', 'pages'), file).split(sep).join('/').replace(/\.ts$/, '').replace(/\/index$/, '')}`;

describe('deploy/nginx/atrium.conf in the guides', () => {
  // The in-app guide is read on the site, where the repository's files are out of reach: it shows the file.
  it.each(['docs/en/deploy/index.md', 'docs/zh-cn/deploy/index.md', 'docs/en/deploy/subdomains.md', 'docs/zh-cn/deploy/subdomains.md'])('%s shows it unchanged', (file) => {
    const text = read(file);
    expect(text).toContain(`\`\`\`nginx\n${conf}\`\`\``);
  });

  // The repository's documents link it (tests/unit/docs-links.test.ts checks that links resolve).
  it.each([['README.md', 'deploy/nginx/atrium.conf'], ['docs/operators/nginx.md', '../../deploy/nginx/atrium.conf']])('%s links it instead of copying it', (file, link) => {
    const text = read(file);
    expect(text).toContain(`](${link})`);
    expect(text).not.toContain('upstream atrium {');
  });

  it('appends to X-Forwarded-For and says the scheme, as TRUST_PROXY=1 expects', () => {
    expect(conf).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
    expect(conf).toContain('proxy_set_header X-Forwarded-Proto $scheme;');
    expect(conf).toContain('proxy_set_header Host $host;');
    // Set once for the server: a location with its own proxy_set_header would drop the others.
    expect(conf.match(/proxy_set_header X-Forwarded-For/g)).toHaveLength(1);
    for (const m of conf.matchAll(/location [^{]+\{([^}]*)\}/g)) expect(m[1]).not.toContain('proxy_set_header');
  });

  it('sends everything to the upstream of several instances, the subdomains included', () => {
    const upstream = /upstream atrium \{([^}]*)\}/.exec(conf)?.[1] ?? '';
    expect(upstream.match(/^\s*server 127\.0\.0\.1:\d+/gm)!.length).toBeGreaterThanOrEqual(2);
    expect(upstream).toMatch(/keepalive \d+;/);
    for (const m of conf.matchAll(/proxy_pass (\S+);/g)) expect(m[1]).toBe('http://atrium');
    for (const name of ['example.com', 'ask.example.com', 'doc.example.com', 'modules.example.com']) expect(conf).toMatch(new RegExp(`server_name [^;]*\\b${name.replaceAll('.', '\\.')}\\b`));
  });

  it('serves the hashed build assets with a one-year immutable cache', () => {
    const astro = /location \/_astro\/ \{([^}]*)\}/.exec(conf)?.[1] ?? '';
    expect(astro).toContain('add_header Cache-Control "public, max-age=31536000, immutable";');
    expect(astro).toMatch(/root \/srv\/atrium\/dist\/client;/);
    expect(astro).toContain('try_files $uri @atrium;');
    // The same cache the server itself gives them (src/server/static.ts).
    expect(read('src/server/static.ts')).toContain("'public, max-age=31536000, immutable'");
  });

  it('turns buffering off with a long read timeout only on routes that stream, and lists every one of them', () => {
    const routes = new Set(files('src/pages/api').filter((f) => f.endsWith('.ts')).map(routeOf));
    expect(streaming.map((l) => l.path).sort()).toEqual(['/api/chat/send', '/api/chat/stream', '/api/interaction/stream']);
    for (const l of streaming) {
      expect(routes.has(l.path) || l.path === STREAM_PATH, `${l.path} is a route`).toBe(true);
      const timeout = /proxy_read_timeout (\d+)([smh]);/.exec(l.body);
      expect(timeout, l.path).not.toBeNull();
      expect(Number(timeout![1]) * { s: 1, m: 60, h: 3600 }[timeout![2] as 's' | 'm' | 'h']).toBeGreaterThanOrEqual(600);
    }
    // Buffering and the read timeout stay nginx's defaults everywhere else.
    expect(conf.match(/proxy_buffering off;/g)).toHaveLength(streaming.length);
    expect(conf.match(/proxy_read_timeout/g)).toHaveLength(streaming.length);
    // Every route answering server-sent events is among them.
    const sse = files('src/pages/api').filter((f) => /sendReply\(|resumeReply\(|text\/event-stream|UI_MESSAGE_STREAM_HEADERS/.test(read(f))).map(routeOf);
    expect(sse.length).toBeGreaterThan(0);
    for (const r of [...sse, STREAM_PATH]) expect(streaming.map((l) => l.path), r).toContain(r);
  });
});

describe("deploy/nginx/atrium.conf: nginx's own refusals", () => {
  const targets = [...conf.matchAll(/^\s*error_page ([\d ]+?) (?:=\d+ )?(\S+);$/gm)].map((m) => ({ statuses: m[1]!.split(' '), target: m[2]! }));

  it('sends each status nginx answers itself on /api to an internal answer of its own', () => {
    expect(targets.flatMap((t) => t.statuses).sort()).toEqual(['400', '405', '413', '414', '494', '502', '504']);
    for (const { target } of targets) {
      const body = new RegExp(`location = ${target.replaceAll('/', '\\/')} \\{([\\s\\S]*?)\\n  \\}`).exec(conf)?.[1];
      expect(body, target).toBeDefined();
      expect(body).toContain('internal;');
      expect(body).toContain('default_type application/json;');
      // Both languages, each an envelope.
      const replies = [...body!.matchAll(/return \d+ '(.*)';/g)].map((m) => JSON.parse(m[1]!.replace('$atrium_time', '1').replace('$atrium_method', 'TRACE')) as Record<string, unknown>);
      expect(replies.length, target).toBeGreaterThanOrEqual(1);
      for (const r of replies) expect(Object.keys(r)).toEqual(['code', 'msg', 'data', 'time']);
    }
  });

  it('names the body limit it enforces in its 413 answer', () => {
    const limit = /client_max_body_size (\d+)m;/.exec(conf)![1];
    const answer = /location = \/__atrium\/413 \{([\s\S]*?)\n {2}\}/.exec(conf)![1]!;
    expect(answer).toContain(`the limit is ${limit} MB`);
    expect(answer).toContain(`最大允许 ${limit} MB`);
  });
});

describe('TRUST_PROXY in the deployment files', () => {
  it('names the proxy by its address: a count would trust every peer', () => {
    const systemd = /^#\s+TRUST_PROXY=(\S+)$/m.exec(unit)![1]!;
    const composed = /^ {4}TRUST_PROXY: "([^"]+)"$/m.exec(compose)![1]!;
    const confLine = /TRUST_PROXY=(\S+)/.exec(conf)![1]!;
    for (const value of [systemd, composed, confLine]) {
      expect(parseTrustProxy(value)?.addresses, value).not.toBeNull();
      expect(exposedTrustProblem(value, parseTrustProxy(value), '0.0.0.0')).toBeNull();
    }
    // compose: the address is nginx's, fixed on the network compose defines.
    expect(compose).toContain(`ipv4_address: ${composed}`);
    const subnet = /- subnet: (\S+)/.exec(compose)![1]!;
    expect(parseTrustProxy(subnet)!.addresses!.check(composed)).toBe(true);
  });
});

describe('deploy/systemd/atrium@.service', () => {
  const directive = (name: string): string[] => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1]!);
  const environment = Object.fromEntries(directive('Environment').map((v) => v.split('=') as [string, string]));

  it('starts the built server directly with the V8 flags the server wants (no npm, no re-exec)', () => {
    const [exec] = directive('ExecStart');
    const parts = exec!.split(/\s+/);
    expect(parts[0]).toMatch(/\/node$/);
    expect(parts.slice(1, -1)).toEqual(SERVER_V8_FLAGS);
    // …and the C library settings it would otherwise re-execute itself to get.
    for (const [name, value] of Object.entries(SERVER_ENV)) expect(environment[name], name).toBe(value);
    expect(parts.at(-1)).toBe(`${environment.ATRIUM_ROOT}/dist/atrium.mjs`);
    expect(directive('WorkingDirectory')).toEqual([environment.ATRIUM_ROOT]);
    expect(directive('KillSignal')).toEqual(['SIGTERM']);
    expect(directive('Restart')).toEqual(['on-failure']);
  });

  it('takes its port from the instance name, the ports nginx lists, and its settings from an EnvironmentFile', () => {
    expect(environment.PORT).toBe('%i');
    expect(environment.HOST).toBe('127.0.0.1');
    expect(directive('EnvironmentFile')).toEqual(['-/etc/atrium.env']);
    // A value from EnvironmentFile= beats Environment= whatever their order: the unit says to keep PORT out of it.
    expect(unit).toContain('but not PORT');
    const ports = [...conf.matchAll(/server 127\.0\.0\.1:(\d+)/g)].map((m) => m[1]);
    for (const port of ports) expect(unit).toContain(`atrium@${port}`);
  });

  it('is hardened and may write only DATA_DIR', () => {
    expect(directive('NoNewPrivileges')).toEqual(['yes']);
    expect(directive('ProtectSystem')).toEqual(['strict']);
    expect(directive('ReadWritePaths')).toEqual([environment.DATA_DIR]);
    expect(`/var/lib/${directive('StateDirectory')[0]}`).toBe(environment.DATA_DIR);
    // V8 writes and runs machine code: this one would stop Node at start.
    expect(directive('MemoryDenyWriteExecute')).toEqual([]);
  });

  it('sets only variables Atrium reads, in its examples as in its lines', () => {
    const names = [...Object.keys(environment), ...[...unit.matchAll(/^#\s+([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!)];
    expect(names.length).toBeGreaterThan(5);
    // The C library's own variables the server sets (v8-flags.ts) are the exception.
    for (const name of names.filter((n) => !(n in SERVER_ENV))) expect(READ_NAMES, name).toContain(name);
  });
});

describe('deploy/Dockerfile and deploy/compose.yaml', () => {
  it('start the server directly with the same flags, on the port compose and the health check use', () => {
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    expect(cmd).toEqual(['node', ...SERVER_V8_FLAGS, 'dist/atrium.mjs']);
    for (const [name, value] of Object.entries(SERVER_ENV)) expect(dockerfile, name).toMatch(new RegExp(`^ENV ${name}=${value}$`, 'm'));
    expect(dockerfile).toMatch(/^EXPOSE 4321$/m);
    expect(dockerfile).toContain('PORT=4321');
    expect(compose).toMatch(/^ {4}PORT: "4321"$/m);
    expect(dockerfile).toContain('/healthz');
    // The Node of the image satisfies package.json's engines.
    const major = Number(/NODE_IMAGE=node:(\d+)/.exec(dockerfile)![1]);
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(major).toBeGreaterThanOrEqual(Number(/(\d+)/.exec(engines)![1]));
  });

  it('runs two app instances on PostgreSQL and Redis, behind nginx with the same atrium.conf', () => {
    expect(compose).toMatch(/^ {2}app1:$/m);
    expect(compose).toMatch(/^ {2}app2:$/m);
    expect(compose).toMatch(/^ {2}postgres:$/m);
    expect(compose).toMatch(/^ {2}redis:$/m);
    expect(compose).toContain('./nginx/atrium.conf:/etc/atrium/atrium.conf:ro');
    // nginx's start command points the conf's upstream lines at the containers: applied here, every
    // instance of the conf is replaced and none is left on 127.0.0.1.
    const seds = [...compose.matchAll(/-e 's\/([^/]+)\/([^/]+)\/'/g)].map((m) => [m[1]!, m[2]!] as const);
    let pointed = conf;
    for (const [from, to] of seds) {
      expect(pointed, from).toContain(from);
      pointed = pointed.replace(from, to);
    }
    const upstream = /upstream atrium \{([^}]*)\}/.exec(pointed)![1]!;
    expect([...upstream.matchAll(/server (\S+)/g)].map((m) => m[1])).toEqual(['app1:4321', 'app2:4321']);
    // The root /_astro/ is read from is where the nginx image puts the build's client files.
    expect(dockerfile).toContain('COPY --from=build /srv/atrium/dist/client/ /srv/atrium/dist/client/');
  });

  it('sets only variables Atrium reads, each in the configuration reference', () => {
    const block = /x-app: &app[\s\S]*?\n {2}environment:\n((?: {4}.*\n)+)/.exec(compose)![1]!;
    const names = [...block.matchAll(/^ {4}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
    const examples = [...read('deploy/atrium.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    expect(names).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'TRUST_PROXY', 'SITE_URL', 'DATA_DIR']));
    for (const name of [...names, ...examples]) {
      expect(READ_NAMES, name).toContain(name);
      expect(configuration, name).toContain(`\`${name}\``);
    }
  });

  it('README links each of them and the operator documents walk through them', () => {
    const operators = ['deployment', 'nginx', 'systemd'].map((name) => read(`docs/operators/${name}.md`)).join('\n');
    for (const file of ['deploy/nginx/atrium.conf', 'deploy/systemd/atrium@.service', 'deploy/compose.yaml', 'deploy/Dockerfile']) {
      expect(existsSync(join(ROOT, file))).toBe(true);
      expect(readme, file).toContain(`](${file})`);
      expect(operators, file).toContain(`](../../${file})`);
    }
  });
});
