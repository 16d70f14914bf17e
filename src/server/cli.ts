// Operator commands (`npm run atrium -- <command>`) on a runtime: the CLI process's own
// (cli-entry.ts) or, with PGlite while the site runs, the server's (cli-socket.ts). Output goes to
// the caller's sink, so both print the same. The commands themselves are registered by their areas
// (lib/server/<area>/commands.ts, loaded by boot/commands.ts); this file parses, runs and audits.
import type { Runtime } from '../lib/server/runtime';
import '../lib/server/boot/commands';
import { commandContext, commandHelp, findCommand, maskSecrets, parseCommand, synopsis, type CliCommand, type CliIo, type ParsedCommand } from '../lib/server/commands';
import { CLI_ACTOR, recordAction } from '../lib/server/admin/audit';

export type { CliIo };

const PROCESS_IO: CliIo = { out: (t) => void process.stdout.write(t), err: (t) => void process.stderr.write(t), cwd: process.cwd() };

const FOOTER = `
With the embedded database (PGlite) and the site running, commands run inside the server through
DATA_DIR/atrium.sock; the output is the same. \`npm run atrium -- <command> --help\` shows one command.
`;

/** The whole help text, generated from the registered commands. */
export function usage(): string {
  return `Usage: npm run atrium -- <command>\n\n${commandHelp()}${FOOTER}`;
}

/** One command's help: its synopsis and summary. */
function commandUsage(command: CliCommand): string {
  return `Usage: npm run atrium -- ${synopsis(command)}\n  ${command.summary.replace(/\n/g, '\n  ')}\n`;
}

type Prepared = { answer: { out?: string; err?: string; code: number } } | { command: CliCommand; parsed: Extract<ParsedCommand, { ok: true }> };

/**
 * What needs no runtime: the help, an unknown command, arguments the command refuses; otherwise
 * the command and its parsed arguments.
 */
function prepare(args: string[]): Prepared {
  const [name = 'help', ...rest] = args;
  if (name === 'help' || name === '--help') {
    const one = rest[0] ? findCommand(rest[0]) : null;
    return { answer: { out: one ? commandUsage(one) : usage(), code: args.length ? 0 : 2 } };
  }
  const command = findCommand(name);
  if (!command) return { answer: { err: `Unknown command "${name}".\n\n${usage()}`, code: 2 } };
  const parsed = parseCommand(command, rest);
  if (!parsed.ok) return { answer: { err: parsed.error, code: 2 } };
  if (parsed.help) return { answer: { out: commandUsage(command), code: 0 } };
  return { command, parsed };
}

/** The exit code when `args` is answered without a runtime (help, usage errors), after writing it; else null. */
export function answerWithoutRuntime(args: string[], io: CliIo): number | null {
  const prepared = prepare(args);
  if (!('answer' in prepared)) return null;
  if (prepared.answer.out) io.out(prepared.answer.out);
  if (prepared.answer.err) io.err(prepared.answer.err);
  return prepared.answer.code;
}

/** Runs one command on `runtime`, writing to `io`; the exit code. Changes are written to the audit log. */
export async function runCommand(args: string[], runtime: Runtime, io: CliIo = PROCESS_IO): Promise<number> {
  const answered = answerWithoutRuntime(args, io);
  if (answered !== null) return answered;
  const { command, parsed } = prepare(args) as Exclude<Prepared, { answer: unknown }>;
  const ctx = commandContext(runtime, command.name, parsed, io);
  const before = command.readOnly ? '' : (await command.audit?.before?.(ctx)) ?? '';
  // One unit of work: the cache tags the command's writes touched go out once it has finished.
  const code = await runtime.invalidation.unit(() => command.run(ctx));
  if (code === 0 && !command.readOnly) {
    // One audit row for a command that changed something (secrets masked).
    const shown = maskSecrets(command, args.slice(1), parsed.tokens);
    const after = command.audit?.after ? command.audit.after(ctx) : shown.join(' ');
    await recordAction(runtime.db, CLI_ACTOR, command.name, shown[0] ?? '', before, after).catch((e: unknown) => runtime.log.warn('audit failed', { err: String(e) }));
  }
  return code;
}
