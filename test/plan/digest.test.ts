import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestValue, hashValue, stableStringify } from '../../src/plan/hash.js';
import { identityHash } from '../../src/plan/kinds/plan-deployments.js';

const samples: unknown[] = [
  null,
  undefined,
  0,
  'x',
  [],
  {},
  [undefined, () => 1, 'a'],
  { b: undefined, a: [1, { d: 'é"\\\n', c: null }], z: 'y'.repeat(200_000) },
  new Date(0),
  { list: Array.from({ length: 5000 }, (_, i) => ({ id: `id-${i}`, n: i, ok: i % 2 === 0 })) },
  [[], [undefined, [1, [2]]], Array.from({ length: 1000 }, (_, i) => ({ i }))],
];

describe('digestValue (streamed hashValue)', () => {
  it('gives exactly hashValue for any JSON-like value, including undefined members and long text', () => {
    for (const v of samples) expect(digestValue(v)).toBe(hashValue(v));
    fc.assert(fc.property(fc.jsonValue(), (v) => digestValue(v) === hashValue(v)));
  });
});

describe('identityHash (a deployment identity, hashed without the generic walk)', () => {
  it('gives exactly hashValue of the identity, for any strings and a missing version', () => {
    const same = (flow: string, pkg: string, version: string | null): boolean =>
      identityHash({ flow, package: pkg, version }) === hashValue({ flow, package: pkg, version });
    expect(same('office', 'seven-zip', '24.09')).toBe(true);
    expect(same('é"\\\n\u0001', '\ud800 lone', null)).toBe(true);
    fc.assert(fc.property(fc.string(), fc.string(), fc.option(fc.string()), same));
  });
});

describe('stableStringify', () => {
  /** The reference: JSON text with each object's keys in `sort()` order (an object would put integer-like keys first). */
  const reference = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(o[k])}`).join(',')}}`;
  };

  it('writes the JSON of the key-sorted value, for objects of few and many keys (its own small-list sort)', () => {
    const keys = fc.constantFrom('a', 'B', 'b', 'aa', 'é', '_', '10', '9', 'Z', 'z', '\u00ff', 'key', 'Key', 'k-1', 'k_1', 'x'.repeat(3));
    const wide = fc.dictionary(fc.oneof(keys, fc.string()), fc.jsonValue(), { maxKeys: 40 });
    fc.assert(fc.property(fc.oneof(fc.jsonValue(), wide), (v) => stableStringify(v) === reference(v)));
  });
});
