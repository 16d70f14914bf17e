import { readConfig } from '../env';
import type { Runtime } from '../runtime';
import { createRuntime } from './runtime';

// Only `astro dev` reaches this: the production server creates the runtime and passes it in
// `locals`. One per dev process is what PGlite's one-process rule allows anyway.
let dev: Promise<Runtime> | null = null;

export function getDevRuntime(): Promise<Runtime> {
  dev ??= createRuntime(readConfig());
  return dev;
}
