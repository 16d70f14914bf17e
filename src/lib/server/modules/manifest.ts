// The module manifest, `atrium.json` at the root of a package: who the module is, which Atrium it
// works with, what it contributes (shaped after VS Code's `contributes`) and the capabilities it asks
// for. The zod schema below is the one definition: the JSON Schema published for module authors
// (docs/modules/atrium-module.schema.json) is generated from it (`manifestJsonSchema`), and a unit
// test keeps the committed file equal to it. Rules between fields (a route needs the `routes`
// capability and a server entry, …) cannot be said in JSON Schema: `manifestProblems` checks them.
import semver from 'semver';
import { z } from 'zod';
import { MODULE_UID, SEMVER } from '../../shared/market';
import { SLOTS } from '../../shared/module-slots';

/** The manifest's file name, at the root of the zip. */
export const MANIFEST_FILE = 'atrium.json';

/** Most bytes `atrium.json` may have: a manifest is a page of JSON, not a payload. */
export const MAX_MANIFEST_BYTES = 64 * 1024;

/**
 * What a module may ask for. The administrator sees each one's description (`developer.capability.<id>`)
 * before installing; the reviewer sees them before approving.
 */
export const CAPABILITIES = [
  'posts:read', 'posts:write', 'members:read', 'markdown', 'routes', 'storage', 'http:outbound', 'client:code', 'events', 'jobs',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Named places in pages where a module's client component can mount (lib/shared/module-slots.ts). */
export { SLOTS };

/** Site events delivered to a module's server code after the change is committed. */
export const EVENTS = ['post.created', 'reply.created', 'member.joined', 'order.paid'] as const;

const text = (max: number) => z.string().trim().min(1).max(max);
/** A text in both languages the site speaks. */
const bilingual = (max: number) => z.strictObject({ 'zh-cn': text(max), en: text(max) });
/** A file inside the package: relative, forward slashes, never climbing out. */
const FilePath = z.string().max(200).regex(/^(?!\/)(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9._\-/]+$/)
  .describe('A file in the package, relative to its root (forward slashes, no "..")');
const SettingKey = z.string().regex(/^[a-z][a-zA-Z0-9_]{0,39}$/);
/** A semantic version range (npm's syntax): `>=0.1.0 <2.0.0`, `^0.1.0`, `0.x`. */
const Range = z.string().trim().min(1).max(100).regex(/^[0-9A-Za-z.*^~<>=|\s-]+$/)
  .describe('The Atrium versions the module works with, as an npm semver range (e.g. ">=0.1.0 <1.0.0")');

/** Delimiters of a markdown span: one to three punctuation characters that markdown itself does not use for a span. */
const Delim = z.string().regex(/^[$%@=^~+!&|:]{1,3}$/).describe('1–3 of $ % @ = ^ ~ + ! & | :');
const Delimiters = z.strictObject({ open: Delim, close: Delim });

// --- Settings, strings and scheduled jobs (issue 26: the server-side contribution points) ---------
// A setting's label, an option's label or a job's title is either the text in both languages, or the
// key of a string in `contributes.i18n` (which must then hold it in both languages).

/** A key of the module's own strings: letters, digits, `.`, `_`, `-`. */
const I18nKey = z.string().regex(/^[A-Za-z][A-Za-z0-9._-]{0,79}$/).describe('A key of contributes.i18n');
/** Text in both languages, or the key of a string in `contributes.i18n`. */
const label = (max: number) => z.union([bilingual(max), I18nKey]);
/** The module's strings: the same keys in both languages (checked at upload), at most 500 of them. */
const Strings = z.record(I18nKey, z.string().max(2000)).refine((o) => Object.keys(o).length <= 500, { message: 'too_big' });
const I18n = z.strictObject({ 'zh-cn': Strings, en: Strings })
  .describe('The module\'s strings in both languages: labels for settings and jobs by key, `ctx.t(key)` in hooks');

const settingBase = { key: SettingKey, title: label(80), description: label(300).optional() };
const Setting = z.discriminatedUnion('type', [
  z.strictObject({ ...settingBase, type: z.literal('string'), default: z.string().max(2000), maxLength: z.number().int().min(1).max(2000).optional() }),
  z.strictObject({ ...settingBase, type: z.literal('text'), default: z.string().max(20_000) }),
  z.strictObject({ ...settingBase, type: z.literal('number'), default: z.number(), min: z.number().optional(), max: z.number().optional(), integer: z.boolean().optional() }),
  z.strictObject({ ...settingBase, type: z.literal('boolean'), default: z.boolean() }),
  z.strictObject({ ...settingBase, type: z.literal('select'), default: z.string().max(100), options: z.array(z.strictObject({ value: z.string().min(1).max(100), title: label(80) })).min(1).max(50) }),
  z.strictObject({ ...settingBase, type: z.literal('url'), default: z.string().max(500).describe('An http(s) address, or "" for none') }),
  z.strictObject({ ...settingBase, type: z.literal('secret') }).describe('Never shown again once saved (the console says "set" and offers to replace it); no default'),
]);
export type ManifestSetting = z.infer<typeof Setting>;
/** The setting types, for messages. */
export const SETTING_TYPES = ['string', 'text', 'number', 'boolean', 'select', 'url', 'secret'] as const;

/** Bounds of a job's interval: once a minute at most, once a week at least. */
export const JOB_MINUTES = { min: 1, max: 7 * 24 * 60 } as const;
const Job = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/),
  title: label(80).optional(),
  every: z.number().int().min(JOB_MINUTES.min).max(JOB_MINUTES.max).describe('Minutes between two runs (1 to 10080); the first run is one interval after install'),
  timeout: z.number().int().min(1).max(120).optional().describe('Seconds a run may take (default 30)'),
});
export type ManifestJob = z.infer<typeof Job>;
// --- end of settings, strings and jobs ---------------------------------------------------------

// --- issue 26, the editor module (helper `heditor`): a module may provide the site's markdown editor.
/** The component mounted wherever the site edits markdown (post form, reply box, docs editor, studio). */
const EditorContribution = z.strictObject({
  component: z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/).describe('The export of the client entry the site mounts as its markdown editor'),
  height: z.number().int().min(0).max(2000).optional().describe('Pixels reserved while it loads, so the page does not jump'),
}).describe('Provides the site\'s markdown editor: the client entry\'s component, given the props every form passes (value, onChange, drafts, uploads)');
// --- end of the editor module's block

const Contributes = z.strictObject({
  editor: EditorContribution.optional(),
  markdown: z.strictObject({
    inline: z.array(Delimiters).min(1).max(4).optional().describe('Inline spans the module renders, e.g. {"open": "$", "close": "$"}'),
    block: z.array(Delimiters).min(1).max(4).optional().describe('Blocks on lines of their own, e.g. {"open": "$$", "close": "$$"}'),
    fence: z.array(z.string().regex(/^[a-z][a-z0-9-]{0,19}$/)).min(1).max(8).optional().describe('Fenced code languages the module renders, e.g. ["math"]'),
    browser: FilePath.optional().describe('Its browser half (an ES module whose default export has the same `markdown` function), so the editor preview and the chat show what will be posted'),
    css: FilePath.optional().describe('Styles for what it renders, served to pages that show markdown'),
  }).optional().describe('Markdown the site parses and hands to the module\'s `markdown` hook (server entry), one call per document'),
  slots: z.array(z.strictObject({
    slot: z.enum(SLOTS),
    component: z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/).describe('The export of the client entry mounted there'),
    height: z.number().int().min(0).max(2000).optional().describe('Pixels reserved so the page does not jump'),
  })).max(20).optional(),
  routes: z.array(z.strictObject({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    path: z.string().max(120).regex(/^\/[a-z0-9_:\-/.]*$/).describe('Under /api/m/{uid}'),
    access: z.enum(['public', 'member', 'admin']),
  })).max(50).optional(),
  settings: z.array(Setting).max(100).optional(),
  i18n: I18n.optional(),
  events: z.array(z.enum(EVENTS)).max(EVENTS.length).optional(),
  jobs: z.array(Job).max(20).optional(),
});

/** The manifest as a module author writes it. */
export const Manifest = z.strictObject({
  $schema: z.string().max(300).optional(),
  uid: z.string().regex(MODULE_UID).describe('The module\'s uid in the market'),
  version: z.string().max(20).regex(SEMVER).describe('The semantic version of this package'),
  name: bilingual(60),
  description: bilingual(500),
  atrium: Range,
  entry: z.strictObject({
    server: FilePath.optional().describe('Runs in the module host process'),
    client: FilePath.optional().describe('An ES module loaded in members\' browsers (needs client:code)'),
    css: FilePath.optional(),
  }).default({}),
  capabilities: z.array(z.enum(CAPABILITIES)).max(CAPABILITIES.length).default([]),
  contributes: Contributes.default({}),
}).describe('atrium.json: the manifest of an Atrium module package');
export type Manifest = z.infer<typeof Manifest>;

/** The JSON Schema published for module authors, generated from `Manifest`. */
export function manifestJsonSchema(): Record<string, unknown> {
  return { title: 'atrium.json', ...z.toJSONSchema(Manifest, { io: 'input', target: 'draft-2020-12' }) };
}

/** One thing wrong with a package, as a message key and its values (translated when replied). */
export interface PackageProblem {
  key: string;
  values?: Record<string, string | number>;
}

const fieldName = (path: readonly PropertyKey[]): string =>
  path.length ? path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('') : MANIFEST_FILE;

/** zod's issues as problems a developer can act on (the field and what is wrong with it). */
function issueProblems(issues: readonly z.core.$ZodIssue[], json: unknown): PackageProblem[] {
  const out: PackageProblem[] = [];
  // zod does not say whether a wrong-typed value was there at all: look it up.
  const valueAt = (path: readonly PropertyKey[]): unknown =>
    path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), json);
  for (const issue of issues) {
    const field = fieldName(issue.path);
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const k of issue.keys) out.push({ key: 'devstudio.manifest.unknown', values: { field: fieldName([...issue.path, k]) } });
        break;
      case 'invalid_type':
        out.push(valueAt(issue.path) === undefined
          ? { key: 'devstudio.manifest.required', values: { field } }
          : { key: 'devstudio.manifest.type', values: { field, expected: String(issue.expected) } });
        break;
      case 'invalid_value':
        out.push({ key: 'devstudio.manifest.choice', values: { field, choices: issue.values.map(String).join(', ') } });
        break;
      case 'invalid_union':
        out.push({ key: 'devstudio.manifest.choice', values: { field, choices: SETTING_TYPES.join(', ') } });
        break;
      case 'too_big':
      case 'too_small':
        out.push({ key: 'devstudio.manifest.size', values: { field } });
        break;
      default:
        out.push({ key: 'devstudio.manifest.format', values: { field } });
    }
  }
  return out;
}

/**
 * The manifest's problems against itself and the package's file names: the schema, a valid version
 * range, unique setting keys, files that exist, and what each contribution needs (capability, entry).
 */
export function manifestProblems(manifest: Manifest, files: ReadonlySet<string>): PackageProblem[] {
  const out: PackageProblem[] = [];
  if (!semver.validRange(manifest.atrium)) out.push({ key: 'devstudio.manifest.range', values: { field: 'atrium', range: manifest.atrium } });
  const named: [string, string | undefined][] = [
    ['entry.server', manifest.entry.server], ['entry.client', manifest.entry.client], ['entry.css', manifest.entry.css],
    ['contributes.markdown.browser', manifest.contributes.markdown?.browser],
    ['contributes.markdown.css', manifest.contributes.markdown?.css],
  ];
  for (const [field, file] of named) {
    if (file && !files.has(file)) out.push({ key: 'devstudio.manifest.missingFile', values: { field, file } });
  }
  const has = new Set<string>(manifest.capabilities);
  const c = manifest.contributes;
  const needs = (when: unknown, field: string, capability: Capability): void => {
    if (when && !has.has(capability)) out.push({ key: 'devstudio.manifest.capabilityNeeded', values: { field, capability } });
  };
  const needsEntry = (when: unknown, field: string, entry: 'server' | 'client'): void => {
    if (when && !manifest.entry[entry]) out.push({ key: 'devstudio.manifest.entryNeeded', values: { field, entry: `entry.${entry}` } });
  };
  needs(c.markdown, 'contributes.markdown', 'markdown');
  needs(c.markdown?.browser || c.slots?.length || manifest.entry.client, c.slots?.length ? 'contributes.slots' : 'entry.client', 'client:code');
  needs(c.editor, 'contributes.editor', 'client:code');
  needsEntry(c.editor, 'contributes.editor', 'client');
  needs(c.routes?.length, 'contributes.routes', 'routes');
  needs(c.events?.length, 'contributes.events', 'events');
  needs(c.jobs?.length, 'contributes.jobs', 'jobs');
  needsEntry(c.markdown, 'contributes.markdown', 'server');
  if (c.markdown && !c.markdown.inline && !c.markdown.block && !c.markdown.fence) out.push({ key: 'devstudio.manifest.required', values: { field: 'contributes.markdown.inline' } });
  needsEntry(c.slots?.length, 'contributes.slots', 'client');
  needsEntry(c.routes?.length, 'contributes.routes', 'server');
  needsEntry(c.events?.length, 'contributes.events', 'server');
  needsEntry(c.jobs?.length, 'contributes.jobs', 'server');
  out.push(...settingsProblems(manifest));
  return out;
}

/** Settings, strings and jobs: unique keys and names, defaults that fit, both languages with the same keys, labels that exist. */
function settingsProblems(manifest: Manifest): PackageProblem[] {
  const out: PackageProblem[] = [];
  const c = manifest.contributes;
  const strings = c.i18n;
  if (strings) {
    for (const [locale, other] of [['zh-cn', 'en'], ['en', 'zh-cn']] as const) {
      for (const key of Object.keys(strings[other])) {
        if (!Object.hasOwn(strings[locale], key)) out.push({ key: 'devstudio.manifest.i18nMissing', values: { field: `contributes.i18n.${locale}`, locale, value: key } });
      }
    }
  }
  const labelled = (value: unknown, field: string): void => {
    if (typeof value !== 'string') return;
    if (!strings || !Object.hasOwn(strings['zh-cn'], value) || !Object.hasOwn(strings.en, value)) out.push({ key: 'devstudio.manifest.i18nKey', values: { field, value } });
  };
  const seen = new Set<string>();
  (c.settings ?? []).forEach((s, i) => {
    const field = `contributes.settings[${i}]`;
    if (seen.has(s.key)) out.push({ key: 'devstudio.manifest.duplicate', values: { field: `${field}.key`, value: s.key } });
    seen.add(s.key);
    labelled(s.title, `${field}.title`);
    labelled(s.description, `${field}.description`);
    if (s.type === 'select') {
      s.options.forEach((o, j) => labelled(o.title, `${field}.options[${j}].title`));
      if (!s.options.some((o) => o.value === s.default)) out.push({ key: 'devstudio.manifest.format', values: { field: `${field}.default` } });
    }
    if (s.type === 'number' && ((s.min !== undefined && s.default < s.min) || (s.max !== undefined && s.default > s.max) || (s.integer && !Number.isInteger(s.default)))) out.push({ key: 'devstudio.manifest.size', values: { field: `${field}.default` } });
    if (s.type === 'string' && s.maxLength !== undefined && s.default.length > s.maxLength) out.push({ key: 'devstudio.manifest.size', values: { field: `${field}.default` } });
    if (s.type === 'url' && s.default !== '' && !isWebAddress(s.default)) out.push({ key: 'devstudio.manifest.format', values: { field: `${field}.default` } });
  });
  const jobs = new Set<string>();
  (c.jobs ?? []).forEach((j, i) => {
    if (jobs.has(j.name)) out.push({ key: 'devstudio.manifest.duplicate', values: { field: `contributes.jobs[${i}].name`, value: j.name } });
    jobs.add(j.name);
    labelled(j.title, `contributes.jobs[${i}].title`);
  });
  return out;
}

/** An http(s) address without user or password (a setting of type `url`). */
export function isWebAddress(value: string): boolean {
  if (value.length > 500 || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && Boolean(url.hostname);
}

/** A label of the manifest (text in both languages, or a key of its strings) in `locale`. */
export function labelOf(manifest: Pick<Manifest, 'contributes'>, value: string | { 'zh-cn': string; en: string } | undefined, locale: 'zh-cn' | 'en'): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') return value[locale];
  return manifest.contributes.i18n?.[locale][value] ?? value;
}

/** Parses and checks a manifest's text against the package's files: the manifest, or every problem found. */
export function readManifest(source: string, files: ReadonlySet<string>): { manifest: Manifest } | { problems: PackageProblem[] } {
  let json: unknown;
  try {
    json = JSON.parse(source.replace(/^\uFEFF/, ''));
  } catch (err) {
    return { problems: [{ key: 'devstudio.manifest.json', values: { error: err instanceof Error ? err.message.slice(0, 200) : 'JSON' } }] };
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) return { problems: issueProblems(parsed.error.issues, json) };
  const problems = manifestProblems(parsed.data, files);
  return problems.length ? { problems } : { manifest: parsed.data };
}

/** Whether this Atrium version satisfies a manifest's `atrium` range (pre-releases included). */
export function worksWith(range: string, atriumVersion: string): boolean {
  return semver.satisfies(atriumVersion, range, { includePrerelease: true });
}
