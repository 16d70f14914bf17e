// `npm run atrium -- chat:*`: the AI chat's models, prices and usage.
import { z } from 'zod';
import type { Runtime } from '../lib/server/runtime';
import { allModels, removeModel, saveModel, updateModel, SITE_ASSISTANT } from '../lib/server/chat/models';
import { usageByDay } from '../lib/server/chat/quota';

export const CHAT_USAGE = `
  chat:list                                     AI chat models (the environment's and the stored ones), prices and who may use them
  chat:add <name> --base-url <url> --model <id> [--key <api key>] [--title <t>] [--context <tokens>]
           [--price-1k <points>] [--price-message <points>] [--free <n>] [--free-unit messages|tokens]
           [--audience visitors|members|groups] [--groups <id,id>]   add an OpenAI-compatible model (or change it)
  chat:price <name> [--price-1k <points>] [--price-message <points>] [--free <n>] [--free-unit messages|tokens]
  chat:remove <name>                            stop offering a stored model
  chat:usage [days]                             replies, tokens and points per day and model (default 7 days)
`;

const count = z.coerce.number().int().min(0).max(1_000_000_000);
const FLAGS = {
  '--base-url': z.url({ protocol: /^https?$/ }),
  '--model': z.string().min(1).max(128),
  '--key': z.string().max(4000),
  '--title': z.string().min(1).max(100),
  '--context': count,
  '--price-1k': count,
  '--price-message': count,
  '--free': count,
  '--free-unit': z.enum(['messages', 'tokens']),
  '--audience': z.enum(['visitors', 'members', 'groups']),
  '--groups': z.string().regex(/^(\d+(,\d+)*)?$/),
} as const;
type Flag = keyof typeof FLAGS;

function parseFlags(args: string[]): Partial<Record<Flag, string | number>> | string {
  const out: Partial<Record<Flag, string | number>> = {};
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i] as Flag;
    if (!(flag in FLAGS)) return `Unknown option "${args[i]}".`;
    const parsed = FLAGS[flag].safeParse(args[i + 1]);
    if (!parsed.success) return `${flag} has a bad value "${args[i + 1] ?? ''}".`;
    out[flag] = parsed.data as string | number;
  }
  return out;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Runs a chat:* command; null when the command is not one of them. */
/** Where a chat command writes: the CLI's output of the call (the terminal or the socket of the CLI that asked). */
export interface ChatCliIo { out(text: string): void; err(text: string): void }

export async function runChatCommand(runtime: Runtime, command: string, rest: string[], io: ChatCliIo): Promise<number | null> {
  const out = (line: string): void => { io.out(`${line}\n`); };
  const fail = (line: string): number => { io.err(`${line}\n`); return 2; };
  switch (command) {
    case 'chat:list': {
      const models = await allModels(runtime.db, runtime.config.chat.model);
      out(['name', 'source', 'title', 'model', 'base url', 'context', 'price/1k', 'price/msg', 'free/day', 'audience'].join('\t'));
      for (const m of models) {
        out([m.name, m.source, m.title, m.modelId, m.baseUrl, m.contextWindow, m.pricePer1k, m.pricePerMessage, `${m.freeDaily} ${m.freeUnit}`, m.audience === 'groups' ? `groups ${m.groups}` : m.audience].join('\t'));
      }
      out(`${SITE_ASSISTANT}\tbuilt-in\tsite assistant (answers from the site's docs and forum, free)`);
      return 0;
    }
    case 'chat:add': {
      const [name, ...more] = rest;
      if (!name || !NAME.test(name) || name === SITE_ASSISTANT) return fail(`chat:add needs a name of letters, digits, ".", "_" or "-" (not "${SITE_ASSISTANT}").\n${CHAT_USAGE}`);
      const flags = parseFlags(more);
      if (typeof flags === 'string') return fail(flags);
      if (!flags['--base-url'] || !flags['--model']) return fail('chat:add needs --base-url and --model.');
      const done = await saveModel(runtime.db, {
        name, baseUrl: String(flags['--base-url']), modelId: String(flags['--model']), apiKey: flags['--key'] as string | undefined,
        title: flags['--title'] as string | undefined, contextWindow: flags['--context'] as number | undefined,
        pricePer1k: flags['--price-1k'] as number | undefined, pricePerMessage: flags['--price-message'] as number | undefined,
        freeDaily: flags['--free'] as number | undefined, freeUnit: flags['--free-unit'] as 'messages' | 'tokens' | undefined,
        audience: flags['--audience'] as 'visitors' | 'members' | 'groups' | undefined, groups: flags['--groups'] as string | undefined,
      });
      await runtime.pageCache.invalidate(['chat']);
      out(`Model ${name} ${done}.`);
      return 0;
    }
    case 'chat:price': {
      const [name, ...more] = rest;
      if (!name) return fail('chat:price needs a model name.');
      const flags = parseFlags(more);
      if (typeof flags === 'string') return fail(flags);
      const changed = await updateModel(runtime.db, name, {
        pricePer1k: flags['--price-1k'] as number | undefined, pricePerMessage: flags['--price-message'] as number | undefined,
        freeDaily: flags['--free'] as number | undefined, freeUnit: flags['--free-unit'] as 'messages' | 'tokens' | undefined,
      });
      if (!changed) { io.err(`No stored model "${name}" (a model set by CHAT_* variables is priced there).\n`); return 1; }
      await runtime.pageCache.invalidate(['chat']);
      out(`Prices of ${name} changed.`);
      return 0;
    }
    case 'chat:remove': {
      const [name] = rest;
      if (!name) return fail('chat:remove needs a model name.');
      if (!(await removeModel(runtime.db, name))) { io.err(`No stored model "${name}".\n`); return 1; }
      await runtime.pageCache.invalidate(['chat']);
      out(`Model ${name} removed.`);
      return 0;
    }
    case 'chat:usage': {
      const days = rest[0] ? Number(rest[0]) : 7;
      if (!Number.isInteger(days) || days < 1 || days > 366) return fail('chat:usage takes a number of days from 1 to 366.');
      const rows = await usageByDay(runtime.db, days, await runtime.site.get('time_zone', 'Asia/Shanghai'));
      out(['day', 'model', 'replies', 'tokens', 'points'].join('\t'));
      for (const r of rows) out([r.day, r.model, r.messages, r.tokens, r.points].join('\t'));
      return 0;
    }
    default:
      return null;
  }
}
