import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, scrubQueryValues } from '../../src/lib/server/log';

describe('error logs', () => {
  afterEach(() => { vi.restoreAllMocks(); });

  it('keep the shape of a failed query and drop its parameters', () => {
    const message = 'Failed query: update "user" set "motto" = $1 where "id" = $2\nparams: my secret motto,5';
    expect(scrubQueryValues(message)).toBe('Failed query: update "user" set "motto" = $1 where "id" = $2\nparams: [hidden]');
    expect(scrubQueryValues('Key (email)=(alice@example.com) already exists.')).toBe('Key (email)=(…) already exists.');
  });

  it('scrub what the logger writes, errors included', () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { lines.push(String(chunk)); return true; });
    const err = new Error('Failed query: insert into "ask_reply" ("body") values ($1)\nparams: private words');
    createLogger('info').error('unhandled error', { err: err.stack, cause: err });
    expect(lines.join('')).toContain('params: [hidden]');
    expect(lines.join('')).not.toContain('private words');
  });
});
