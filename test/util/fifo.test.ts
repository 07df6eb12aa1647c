/**
 * The ready lists of an apply (util/fifo.ts `Fifo`): first in, first out through its compactions.
 * It replaced `Array#shift`, which moved the rest of a 21,000-action ready list on every start.
 */
import { describe, expect, it } from 'vitest';
import { Fifo } from '../../src/util/fifo.js';

describe('Fifo', () => {
  it('gives items back in the order they came, however pushes and takes interleave', () => {
    const q = new Fifo<number>();
    const out: number[] = [];
    let next = 0;
    // Past several compactions (every 1,024 taken while at least half the list is taken).
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 300; i++) q.push(next++);
      for (let i = 0; i < 250; i++) out.push(q.take()!);
    }
    while (q.size > 0) out.push(q.take()!);
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
    expect(q.take()).toBeUndefined();
    expect(q.size).toBe(0);
  });

  it('counts what is left', () => {
    const q = new Fifo<string>();
    q.push('a');
    q.push('b');
    expect(q.size).toBe(2);
    expect(q.take()).toBe('a');
    expect(q.size).toBe(1);
  });
});
