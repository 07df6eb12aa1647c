/**
 * Standard output gathered into one write per turn of the event loop (io.ts `gatheredStdout`):
 * every line arrives, in order, and nothing waits past the turn, a large burst or a flush.
 */
import { describe, expect, it } from 'vitest';
import { setImmediate as turn } from 'node:timers/promises';
import { gatheredStdout } from '../../src/cli/io.js';

describe('gatheredStdout', () => {
  it('writes the lines of one turn at once, in order, when the loop comes round', async () => {
    const writes: string[] = [];
    const out = gatheredStdout((s) => writes.push(s));
    for (let i = 0; i < 1000; i++) out.write(`line ${i}\n`);
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n').slice(0, -1)).toEqual(Array.from({ length: 1000 }, (_, i) => `line ${i}`));
    out.write('next\n');
    await turn();
    expect(writes).toEqual([writes[0], 'next\n']);
  });

  it('writes as soon as 64K characters wait, without waiting for the turn', () => {
    const writes: string[] = [];
    const out = gatheredStdout((s) => writes.push(s));
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 64; i++) out.write(line);
    expect(writes.join('')).toBe(line.repeat(64));
  });

  it('flush writes what waits now, and a later turn writes nothing twice', async () => {
    const writes: string[] = [];
    const out = gatheredStdout((s) => writes.push(s));
    out.write('a\n');
    out.write('b\n');
    out.flush();
    expect(writes).toEqual(['a\nb\n']);
    await turn();
    expect(writes).toEqual(['a\nb\n']);
  });
});
