// fast-check arbitraries from a route's zod input schema (zod 4's definitions), mostly valid values
// (regex-matching strings, numbers within the bounds, enum members) with hostile ones mixed in at
// every level: what a client could send that a schema reading only the happy path lets through.
import fc from 'fast-check';
import type { z } from 'zod';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, string | number>;
  values?: unknown[];
  in?: z.ZodType;
  out?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  checks?: { _zod: { def: { check: string; value?: unknown; minimum?: number; maximum?: number; pattern?: RegExp; format?: string } } }[];
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Strings no field should choke on. */
export const HOSTILE_STRINGS = [
  '', ' ', '\t\n', 'x'.repeat(100_000), '-1', '0', '1.5', '1e309', 'NaN', 'Infinity', '-Infinity', '0x1F', '2147483648', '99999999999999999999',
  '١٢٣', 'null', 'undefined', 'true', '[]', '{}', '__proto__', 'constructor', 'a\u0000b', '\u0000', '\ud800', '\udfff\ud800', '\u202e\u200b',
  '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "' OR 1=1 --", "'; drop table user; --", '$(id)', '../../../../etc/passwd',
  '%00', '%ff', '\\', '😀'.repeat(500), 'ß'.repeat(300), '\r\nSet-Cookie: x=1',
];

/** Values of every JSON type, deep and prototype-polluting ones included. */
export const HOSTILE_VALUES: unknown[] = [
  null, true, false, 0, -1, -0, 1.5, -2147483649, 2147483648, 2 ** 53 + 1, 1e308, -1e308, [], {}, [null], [[[]]], { a: { b: { c: {} } } },
  JSON.parse('{"__proto__": {"admin": true, "groupId": 2}}'), { constructor: { prototype: { admin: true } } }, { toString: 'x', valueOf: 1 },
  nested(200), Array.from({ length: 5000 }, (_, i) => i), ...HOSTILE_STRINGS,
];

function nested(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? { k: v } : [v];
  return v;
}

export const hostile = (): fc.Arbitrary<unknown> => fc.constantFrom(...HOSTILE_VALUES);

function stringArb(d: Def): fc.Arbitrary<string> {
  let min = 0;
  let max = 40;
  let pattern: RegExp | undefined;
  for (const c of d.checks ?? []) {
    const cd = c._zod.def;
    if (cd.check === 'min_length' && typeof cd.minimum === 'number') min = cd.minimum;
    if (cd.check === 'max_length' && typeof cd.maximum === 'number') max = Math.min(cd.maximum, 200);
    if (cd.check === 'string_format' && cd.pattern instanceof RegExp) pattern = cd.pattern;
  }
  const plain = fc.string({ minLength: Math.min(min, max), maxLength: Math.max(min, max), unit: 'grapheme' });
  if (!pattern) return plain;
  try {
    return fc.oneof(fc.stringMatching(pattern), plain);
  } catch {
    return plain; // a pattern fast-check cannot generate from (lookahead)
  }
}

function numberArb(d: Def): fc.Arbitrary<number> {
  let min = -1e6;
  let max = 1e6;
  let int = false;
  for (const c of d.checks ?? []) {
    const cd = c._zod.def;
    if (cd.check === 'greater_than' && typeof cd.value === 'number') min = Math.max(cd.value, -1e9);
    if (cd.check === 'less_than' && typeof cd.value === 'number') max = Math.min(cd.value, 1e9);
    if (cd.check === 'number_format') int = true;
  }
  return int ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true });
}

/** An arbitrary of input for `schema`: valid-looking most of the time, hostile at any level. */
export function arbitraryOf(schema: z.ZodType, depth = 0): fc.Arbitrary<unknown> {
  const d = defOf(schema);
  const valid = ((): fc.Arbitrary<unknown> => {
    switch (d.type) {
      case 'object': {
        const shape = d.shape ?? {};
        const entries = Object.entries(shape).map(([k, v]) => [k, arbitraryOf(v, depth + 1)] as const);
        return fc.record(Object.fromEntries(entries), { requiredKeys: Object.keys(shape).filter((k) => !['optional', 'default'].includes(defOf(shape[k]!).type)) });
      }
      case 'string': return stringArb(d);
      case 'number': return fc.oneof(numberArb(d), numberArb(d).map(String));
      case 'boolean': return fc.boolean();
      case 'enum': return fc.constantFrom(...Object.values(d.entries ?? { x: 'x' }));
      case 'literal': return fc.constantFrom(...(d.values ?? [null]));
      case 'optional': case 'default': case 'nullable': case 'readonly': case 'catch':
        return fc.oneof({ weight: 4, arbitrary: arbitraryOf(d.innerType!, depth) }, { weight: 1, arbitrary: fc.constant(undefined) });
      case 'array': return fc.array(arbitraryOf(d.element!, depth + 1), { maxLength: 5 });
      case 'union': return fc.oneof(...(d.options ?? []).map((o) => arbitraryOf(o, depth)));
      case 'pipe': {
        const inner = defOf(d.in!).type === 'transform' ? d.out! : d.in!;
        return arbitraryOf(inner, depth);
      }
      case 'record': return fc.dictionary(fc.string({ maxLength: 30 }), arbitraryOf(d.valueType!, depth + 1), { maxKeys: 5 });
      default: return fc.anything({ maxDepth: 2 });
    }
  })();
  return depth > 4 ? valid : fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: hostile() });
}
