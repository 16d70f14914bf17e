import { describe, expect, it } from 'vitest';
import { missingServerEnv, missingV8Flags, SERVER_ENV, SERVER_V8_FLAGS } from '../../src/server/v8-flags';

describe('missingV8Flags', () => {
  it('asks for every server flag when none was given', () => {
    expect(missingV8Flags([], '')).toEqual(SERVER_V8_FLAGS);
    expect(SERVER_V8_FLAGS).toEqual(['--max-semi-space-size=4', '--expose-gc']);
  });

  it('asks for nothing once the flags are on the command line (as after the re-exec)', () => {
    expect(missingV8Flags(SERVER_V8_FLAGS, '')).toEqual([]);
  });

  it('leaves a flag the operator set, with another value or negated, on the command line or in NODE_OPTIONS', () => {
    expect(missingV8Flags(['--max-semi-space-size=32', '--liftoff-only'], '')).toEqual(['--expose-gc']);
    expect(missingV8Flags([], '--max_semi_space_size=16')).toEqual(['--expose-gc']);
    expect(missingV8Flags([], '--max_semi_space_size=16  --expose-gc')).toEqual([]);
  });
});

describe('missingServerEnv', () => {
  it('asks for the fixed malloc mmap threshold when the environment lacks it', () => {
    expect(SERVER_ENV).toEqual({ MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(missingServerEnv({})).toEqual(SERVER_ENV);
    expect(missingServerEnv({ MALLOC_MMAP_THRESHOLD_: '' })).toEqual(SERVER_ENV);
  });

  it('leaves a value the operator set', () => {
    expect(missingServerEnv({ MALLOC_MMAP_THRESHOLD_: '1048576' })).toEqual({});
  });
});
