// The operator commands (`npm run atrium -- <command>`) as a registry: each area registers its
// commands in its own `commands.ts` (boot/commands.ts loads them), a module can register more at
// run time, and the help text, the option parsing (node:util parseArgs: an option a command does
// not declare is refused) and the audit rule (read-only or not) all come from the registration.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { resolve as resolvePath } from 'node:path';
import { registry } from '../shared/registry';
import { translateAny } from '../i18n';
import { AppError } from './http';
import type { Runtime } from './runtime';

/** Where a command writes: the terminal, or the socket of the CLI that asked. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** The caller's working directory, for relative paths. */
  cwd: string;
}

export type OptionValues = Record<string, string | boolean | undefined>;

export interface CommandContext {
  runtime: Runtime;
  /** The command's name as typed. */
  name: string;
  /** Positional arguments after the command's name. */
  args: string[];
  /** The declared options given (`--title x` → `{ title: 'x' }`, a flag → `true`). */
  options: OptionValues;
  out(text: string): void;
  err(text: string): void;
  /** A path the operator typed, relative to where they typed it. */
  path(p: string): string;
  cwd: string;
}

export interface CliCommand {
  /** `family:verb` (or one word such as `backup`). */
  name: string;
  /** The arguments' synopsis for the help, e.g. `<name> <value>`. */
  usage?: string;
  /** What it does, for the help (a long one may go on the next lines). */
  summary: string;
  /** The help groups commands by section, in the order sections first appear. */
  section: string;
  /** Options for parseArgs (`--help` is added to every command). */
  options?: ParseArgsOptionsConfig;
  /** Changes nothing: no audit row. */
  readOnly?: boolean;
  /** Arguments masked in the audit row: positions of positionals, names of options. */
  secret?: { args?: readonly number[]; options?: readonly string[] };
  /** The audit row's before and after when the arguments are not what to show (config:set). */
  audit?: { before?(ctx: CommandContext): Promise<string>; after?(ctx: CommandContext): string };
  /** The exit code: 0 done, 1 refused or failed, 2 wrong usage. */
  run(ctx: CommandContext): Promise<number>;
}

const commands = registry<CliCommand>('cli', (c) => c.name);

/** Adds a command (a later registration of the same name replaces it). */
export function registerCommand(command: CliCommand): void {
  commands.add(command);
}

export function unregisterCommand(name: string): boolean {
  return commands.remove(name);
}

export function findCommand(name: string): CliCommand | null {
  return commands.get(name) ?? null;
}

/** Every registered command, in registration order. */
export function listCommands(): CliCommand[] {
  return commands.list();
}

/** `name <args>`, as the help and the usage errors print it. */
export function synopsis(command: CliCommand): string {
  return command.usage ? `${command.name} ${command.usage}` : command.name;
}

const COLUMN = 48;

/** One command's help lines: the synopsis, then the summary in the second column or below it. */
function helpLines(command: CliCommand): string {
  const head = `  ${synopsis(command)}`;
  const [first = '', ...more] = command.summary.split('\n');
  const rest = more.map((line) => `${' '.repeat(COLUMN)}${line}\n`).join('');
  if (head.length < COLUMN - 1) return `${head.padEnd(COLUMN)}${first}\n${rest}`;
  return `${head}\n${' '.repeat(COLUMN)}${first}\n${rest}`;
}

/** The help text of every command (or of one section), generated from the registry. */
export function commandHelp(section?: string): string {
  const sections = new Map<string, CliCommand[]>();
  for (const c of listCommands()) {
    if (section && c.section !== section) continue;
    sections.set(c.section, [...(sections.get(c.section) ?? []), c]);
  }
  return [...sections.values()].map((list) => list.map(helpLines).join('')).join('\n');
}

export type ParsedCommand =
  | { ok: true; args: string[]; options: OptionValues; help: boolean; tokens: Token[] }
  | { ok: false; error: string };

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

// A negative number (`user:money bob -3 fine`) is an argument, not an option: parseArgs would read
// `-3` as the short option 3, so it is stood in for while parsing.
const NEGATIVE = /^-\d+(?:\.\d+)?$/;
const STAND_IN = '\u0000negative:';

/** The arguments of `command` parsed with its option spec; an undeclared option is an error. */
export function parseCommand(command: CliCommand, argv: readonly string[]): ParsedCommand {
  const masked = argv.map((a) => (NEGATIVE.test(a) ? `${STAND_IN}${a}` : a));
  const unmask = (a: string): string => (a.startsWith(STAND_IN) ? a.slice(STAND_IN.length) : a);
  try {
    const parsed = parseArgs({
      args: masked, options: { ...command.options, help: { type: 'boolean' } }, allowPositionals: true, strict: true, tokens: true,
    });
    const { help, ...options } = parsed.values as OptionValues;
    const tokens = parsed.tokens.map((t) => (t.kind === 'positional' ? { ...t, value: unmask(t.value) } : t));
    return { ok: true, args: parsed.positionals.map(unmask), options, help: help === true, tokens };
  } catch (err) {
    const code = (err as { code?: string }).code;
    const flag = /'(-[^' ]+)/.exec((err as Error).message)?.[1] ?? '';
    const known = Object.keys(command.options ?? {}).map((o) => `--${o}`);
    const why = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
      ? `Unknown option "${flag}" for ${command.name}${known.length ? ` (it takes ${known.join(', ')})` : ' (it takes no options)'}.`
      : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
        ? command.options?.[flag.replace(/^-+/, '')]?.type === 'boolean' ? `${flag} takes no value.` : `${flag} needs a value.`
        : (err as Error).message;
    return { ok: false, error: `${why}\nUsage: npm run atrium -- ${synopsis(command)}\n` };
  }
}

/** The raw arguments with the secret ones masked (for the audit row). */
export function maskSecrets(command: CliCommand, argv: readonly string[], tokens: readonly Token[]): string[] {
  const shown = [...argv];
  let position = 0;
  for (const t of tokens) {
    if (t.kind === 'positional') {
      if (command.secret?.args?.includes(position)) shown[t.index] = '********';
      position++;
    } else if (t.kind === 'option' && command.secret?.options?.includes(t.name) && t.value !== undefined) {
      if (t.inlineValue) shown[t.index] = `${t.rawName}=********`;
      else shown[t.index + 1] = '********';
    }
  }
  return shown;
}

/** The context a command runs with. */
export function commandContext(runtime: Runtime, name: string, parsed: { args: string[]; options: OptionValues }, io: CliIo): CommandContext {
  return {
    runtime, name, args: parsed.args, options: parsed.options,
    out: (text) => io.out(text), err: (text) => io.err(text),
    path: (p) => resolvePath(io.cwd, p), cwd: io.cwd,
  };
}

/** A string option's value (undefined when absent). */
export function stringOption(options: OptionValues, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

/** The answer when no member has that username, e-mail or mobile (exit 1). */
export function noMember(ctx: Pick<CommandContext, 'err'>, account: string | undefined): number {
  ctx.err(`No member "${account ?? ''}" (give a username, e-mail or mobile).\n`);
  return 1;
}

/** A service's refusal in English on stderr (exit 1); anything else is thrown on. */
export function refused(ctx: Pick<CommandContext, 'err'>, err: unknown): number {
  if (!(err instanceof AppError)) throw err;
  ctx.err(`${translateAny('en', err.key, err.options.values)}\n`);
  return 1;
}
