// `npm run atrium -- chat:*`: the AI chat's models, prices and usage.
import { z } from 'zod';
import { commandHelp, registerCommand, type CommandContext, type OptionValues } from '../commands';
import { allModels, removeModel, saveModel, updateModel, SITE_ASSISTANT } from './models';
import { usageByDay } from './quota';

const count = z.coerce.number().int().min(0).max(1_000_000_000);
/** Every option of chat:add, with the rule its value must keep. */
const FLAGS = {
  'base-url': z.url({ protocol: /^https?$/ }),
  model: z.string().min(1).max(128),
  key: z.string().max(4000),
  title: z.string().min(1).max(100),
  context: count,
  'price-1k': count,
  'price-message': count,
  free: count,
  'free-unit': z.enum(['messages', 'tokens']),
  audience: z.enum(['visitors', 'members', 'groups']),
  groups: z.string().regex(/^(\d+(,\d+)*)?$/),
} as const;
type Flag = keyof typeof FLAGS;
const PRICE_FLAGS = ['price-1k', 'price-message', 'free', 'free-unit'] as const satisfies readonly Flag[];
const spec = (flags: readonly Flag[]) => Object.fromEntries(flags.map((f) => [f, { type: 'string' as const }]));

/** The options' values checked against FLAGS: the values, or the message for the first bad one. */
function checkFlags(options: OptionValues): Partial<Record<Flag, string | number>> | string {
  const out: Partial<Record<Flag, string | number>> = {};
  for (const [flag, value] of Object.entries(options) as [Flag, string][]) {
    const parsed = FLAGS[flag].safeParse(value);
    if (!parsed.success) return `--${flag} has a bad value "${value}".`;
    out[flag] = parsed.data as string | number;
  }
  return out;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const fail = (ctx: CommandContext, line: string): number => { ctx.err(`${line}\n`); return 2; };

registerCommand({
  name: 'chat:list', section: 'chat', readOnly: true,
  summary: "AI chat models (the environment's and the stored ones), prices and who may use them",
  async run({ runtime, out }) {
    const models = await allModels(runtime.db, runtime.config.chat.model);
    out(`${['name', 'source', 'title', 'model', 'base url', 'context', 'price/1k', 'price/msg', 'free/day', 'audience'].join('\t')}\n`);
    for (const m of models) {
      out(`${[m.name, m.source, m.title, m.modelId, m.baseUrl, m.contextWindow, m.pricePer1k, m.pricePerMessage, `${m.freeDaily} ${m.freeUnit}`, m.audience === 'groups' ? `groups ${m.groups}` : m.audience].join('\t')}\n`);
    }
    out(`${SITE_ASSISTANT}\tbuilt-in\tsite assistant (answers from the site's docs and forum, free)\n`);
    return 0;
  },
});

registerCommand({
  name: 'chat:add', section: 'chat', secret: { options: ['key'] }, options: spec(Object.keys(FLAGS) as Flag[]),
  usage: '<name> --base-url <url> --model <id> [--key <api key>] [--title <t>] [--context <tokens>]\n'
    + '         [--price-1k <points>] [--price-message <points>] [--free <n>] [--free-unit messages|tokens]\n'
    + '         [--audience visitors|members|groups] [--groups <id,id>]',
  summary: 'add an OpenAI-compatible model (or change it)',
  async run(ctx) {
    const { runtime, args: [name], options } = ctx;
    if (!name || !NAME.test(name) || name === SITE_ASSISTANT) return fail(ctx, `chat:add needs a name of letters, digits, ".", "_" or "-" (not "${SITE_ASSISTANT}").\n${commandHelp('chat')}`);
    const flags = checkFlags(options);
    if (typeof flags === 'string') return fail(ctx, flags);
    if (!flags['base-url'] || !flags.model) return fail(ctx, 'chat:add needs --base-url and --model.');
    const done = await saveModel(runtime.db, {
      name, baseUrl: String(flags['base-url']), modelId: String(flags.model), apiKey: flags.key as string | undefined,
      title: flags.title as string | undefined, contextWindow: flags.context as number | undefined,
      pricePer1k: flags['price-1k'] as number | undefined, pricePerMessage: flags['price-message'] as number | undefined,
      freeDaily: flags.free as number | undefined, freeUnit: flags['free-unit'] as 'messages' | 'tokens' | undefined,
      audience: flags.audience as 'visitors' | 'members' | 'groups' | undefined, groups: flags.groups as string | undefined,
    });
    ctx.out(`Model ${name} ${done}.\n`);
    return 0;
  },
});

registerCommand({
  name: 'chat:price', section: 'chat', options: spec(PRICE_FLAGS),
  usage: '<name> [--price-1k <points>] [--price-message <points>] [--free <n>] [--free-unit messages|tokens]',
  summary: "change a stored model's prices",
  async run(ctx) {
    const { runtime, args: [name], options } = ctx;
    if (!name) return fail(ctx, 'chat:price needs a model name.');
    const flags = checkFlags(options);
    if (typeof flags === 'string') return fail(ctx, flags);
    const changed = await updateModel(runtime.db, name, {
      pricePer1k: flags['price-1k'] as number | undefined, pricePerMessage: flags['price-message'] as number | undefined,
      freeDaily: flags.free as number | undefined, freeUnit: flags['free-unit'] as 'messages' | 'tokens' | undefined,
    });
    if (!changed) { ctx.err(`No stored model "${name}" (a model set by CHAT_* variables is priced there).\n`); return 1; }
    ctx.out(`Prices of ${name} changed.\n`);
    return 0;
  },
});

registerCommand({
  name: 'chat:remove', usage: '<name>', section: 'chat',
  summary: 'stop offering a stored model',
  async run(ctx) {
    const { runtime, args: [name] } = ctx;
    if (!name) return fail(ctx, 'chat:remove needs a model name.');
    if (!(await removeModel(runtime.db, name))) { ctx.err(`No stored model "${name}".\n`); return 1; }
    ctx.out(`Model ${name} removed.\n`);
    return 0;
  },
});

registerCommand({
  name: 'chat:usage', usage: '[days]', section: 'chat', readOnly: true,
  summary: 'replies, tokens and points per day and model (default 7 days)',
  async run(ctx) {
    const { runtime, args } = ctx;
    const days = args[0] ? Number(args[0]) : 7;
    if (!Number.isInteger(days) || days < 1 || days > 366) return fail(ctx, 'chat:usage takes a number of days from 1 to 366.');
    const rows = await usageByDay(runtime.db, days, await runtime.site.get('time_zone', 'Asia/Shanghai'));
    ctx.out(`${['day', 'model', 'replies', 'tokens', 'points'].join('\t')}\n`);
    for (const r of rows) ctx.out(`${[r.day, r.model, r.messages, r.tokens, r.points].join('\t')}\n`);
    return 0;
  },
});
