import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestValue, digestValueInTurns, hashValue } from '../../src/plan/hash.js';

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

describe('digestValueInTurns (the digest made while reads are in flight)', () => {
  it('gives exactly digestValue, pausing once per `every` items of the first two levels', async () => {
    const noPause = (): Promise<void> => Promise.resolve();
    for (const v of samples) expect(await digestValueInTurns(v, noPause, 7)).toBe(digestValue(v));
    await fc.assert(fc.asyncProperty(fc.jsonValue(), async (v) => (await digestValueInTurns(v, noPause, 3)) === digestValue(v)));
    let pauses = 0;
    const lists = [Array.from({ length: 450 }, (_, i) => ({ i })), Array.from({ length: 150 }, (_, i) => [i])];
    await digestValueInTurns(lists, () => Promise.resolve(void pauses++), 100);
    // 450 + 150 items in the second level and the 2 lists of the first: 602 counted, 6 pauses.
    expect(pauses).toBe(6);
  });
});
