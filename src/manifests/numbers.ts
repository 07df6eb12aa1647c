/**
 * Integers past 2^53 - 1 cannot be held exactly by a JavaScript number: YAML's
 * `99999999999999999999` reads as 100000000000000000000, so the schema validates another value
 * than the one written, and a later edit of it (a contentRevision bump) can go unseen. They are
 * refused, each at its position.
 */
import type { Segment } from './yaml-types.js';

/** Paths of every integer-valued number in `value` that is not a safe integer. */
export function unsafeIntegers(value: unknown, path: Segment[] = [], out: Segment[][] = []): Segment[][] {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) out.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => unsafeIntegers(v, [...path, i], out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) unsafeIntegers(v, [...path, k], out);
  }
  return out;
}
