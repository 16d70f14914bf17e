import type { JsonValue, KvBackend, KvRequest } from './types';

// The module store's limits and the check of what a module sends: the module is code the site
// reviewed, not code it trusts with its database, so every request is validated before the backend.

export const KV_LIMITS = { keyMax: 200, valueBytesMax: 64 * 1024, listMax: 1000, depthMax: 32 } as const;

/** Refused store operations; the message goes back to the module as its error. */
export class KvError extends Error {}

// Control characters refused in keys (keys are shown in admin tools and logs).
const CONTROL = /[\u0000-\u001f\u007f]/;

function checkKey(key: unknown, what: string, allowEmpty: boolean): string {
  if (typeof key !== 'string') throw new KvError(`${what} must be a string`);
  if (!allowEmpty && key.length === 0) throw new KvError(`${what} must not be empty`);
  if (key.length > KV_LIMITS.keyMax) throw new KvError(`${what} is longer than ${KV_LIMITS.keyMax} characters`);
  if (CONTROL.test(key)) throw new KvError(`${what} contains control characters`);
  return key;
}

/** Whether `v` is plain JSON (what jsonb keeps without changing it). */
export function isJsonValue(v: unknown, depth = 0): v is JsonValue {
  if (depth > KV_LIMITS.depthMax) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJsonValue(x, depth + 1));
  if (typeof v === 'object') {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(v).every((x) => isJsonValue(x, depth + 1));
  }
  return false;
}

/** Runs one validated store operation for `uid` (the asking process's module, never one it names). */
export async function runKv(backend: KvBackend, uid: string, req: KvRequest): Promise<unknown> {
  switch (req.op) {
    case 'get':
      return backend.get(uid, checkKey(req.key, 'key', false));
    case 'set': {
      const key = checkKey(req.key, 'key', false);
      if (!isJsonValue(req.value)) throw new KvError('value must be JSON (null, boolean, finite number, string, array, plain object)');
      if (Buffer.byteLength(JSON.stringify(req.value)) > KV_LIMITS.valueBytesMax) throw new KvError(`value is larger than ${KV_LIMITS.valueBytesMax} bytes`);
      await backend.set(uid, key, req.value);
      return null;
    }
    case 'delete':
      return backend.delete(uid, checkKey(req.key, 'key', false));
    case 'list':
      return backend.list(uid, checkKey(req.prefix ?? '', 'prefix', true), KV_LIMITS.listMax);
    default:
      throw new KvError('unknown store operation');
  }
}

/** A store in this process's memory: for tests and for sites that do not keep module data. */
export class MemoryKvBackend implements KvBackend {
  private readonly data = new Map<string, Map<string, string>>();

  private scope(uid: string): Map<string, string> {
    let m = this.data.get(uid);
    if (!m) this.data.set(uid, (m = new Map()));
    return m;
  }

  async get(uid: string, key: string): Promise<JsonValue | null> {
    const raw = this.data.get(uid)?.get(key);
    return raw === undefined ? null : (JSON.parse(raw) as JsonValue);
  }

  async set(uid: string, key: string, value: JsonValue): Promise<void> {
    // Stored as text, like jsonb: what a module reads back is a copy, never the object it passed.
    this.scope(uid).set(key, JSON.stringify(value));
  }

  async delete(uid: string, key: string): Promise<boolean> {
    return this.data.get(uid)?.delete(key) ?? false;
  }

  async list(uid: string, prefix: string, limit: number): Promise<{ key: string; value: JsonValue }[]> {
    const m = this.data.get(uid);
    if (!m) return [];
    return [...m.keys()]
      .filter((k) => k.startsWith(prefix))
      .sort()
      .slice(0, limit)
      .map((key) => ({ key, value: JSON.parse(m.get(key)!) as JsonValue }));
  }

  /** Removes every key of a module (uninstall with "remove data"). */
  async purge(uid: string): Promise<void> {
    this.data.delete(uid);
  }
}
