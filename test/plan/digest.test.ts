import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestValue, hashValue } from '../../src/plan/hash.js';

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
