/**
 * util/turns.ts: a long synchronous loop gives way to the event loop once its slice is used, so
 * answers that arrived meanwhile are handled (a pass loads its manifests while reads are in flight).
 */
import { describe, expect, it } from 'vitest';
import { Turns } from '../../src/util/turns.js';

describe('Turns', () => {
  it('stays synchronous within its slice: not due, nothing else runs', async () => {
    const turns = new Turns(60_000);
    let ran = false;
    setImmediate(() => (ran = true));
    for (let i = 0; i < 1000; i++) expect(turns.due()).toBe(false);
    expect(ran).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toBe(true);
  });

  it('once its slice is used, lets callbacks that were waiting run before the loop goes on', async () => {
    const turns = new Turns(0);
    let ran = false;
    setImmediate(() => (ran = true));
    expect(turns.due()).toBe(true);
    const turn = turns.next();
    expect(ran).toBe(false);
    await turn;
    expect(ran).toBe(true);
  });
});
