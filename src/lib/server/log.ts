import type { ServerConfig } from './env';

export interface Logger {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
}

const ORDER = { debug: 10, info: 20, warn: 30, error: 40 } as const;

/**
 * One line per event on stderr: `level message {json}`, short enough to read and easy to grep; or,
 * with LOG_FORMAT=json, one JSON object per line (time, level, msg and the extra fields, request
 * ids included) for a log collector.
 */
export function createLogger(level: ServerConfig['logLevel'], format: string | undefined = process.env.LOG_FORMAT): Logger {
  const json = format === 'json';
  const write = (lvl: keyof typeof ORDER) => (msg: string, extra?: Record<string, unknown>): void => {
    if (ORDER[lvl] < ORDER[level]) return;
    if (json) process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...extra }, scrub)}\n`);
    else process.stderr.write(`[atrium] ${lvl} ${msg}${extra ? ` ${JSON.stringify(extra, scrub)}` : ''}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/**
 * Log the shape of a failed query, never its values: drizzle's errors end their message with
 * `params: …` (member content, hashes, tokens), and PostgreSQL's `detail` repeats key values.
 */
export function scrubQueryValues(text: string): string {
  return text.replace(/\nparams: [^\n]*/g, '\nparams: [hidden]').replace(/(Key \([^)]*\)=\()[^)]*(\))/g, '$1…$2');
}

function scrub(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return scrubQueryValues(value);
  if (value instanceof Error) return scrubQueryValues(value.stack ?? value.message);
  return value;
}
