import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCount } from '../../src/util/count-format.js';

describe('formatCount', () => {
  it("gives toLocaleString('en-US')'s text for any number", () => {
    for (const n of [
      0,
      -0,
      1,
      999,
      1000,
      12_345,
      1_234_567,
      -5,
      -1000,
      -999_999,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      2 ** 60,
      12.5,
      0.125,
    ])
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double({ noNaN: true, min: -1e12, max: 1e12 })), (n) => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
      }),
      { numRuns: 500 },
    );
  });
});
