/**
 * The per-account slot without a server: the token bucket behind the simulator's 429s (time passed
 * in), and reset. The HTTP-level behaviour (429 with Retry-After on the wire) stays in
 * `protocol.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { buildFixtures } from '../../src/simulator/fixtures.js';
import { createSlots, rateLimited, resetSlot } from '../../src/simulator/slots.js';

const fixtures = buildFixtures(1, 'none');
const T0 = 1_000_000;

describe('rateLimited', () => {
  it('lets a burst of `limit` requests through, then asks for whole seconds in Retry-After', () => {
    const slot = createSlots(['k'], fixtures, null, 2, { nowMs: T0 }).get('k')!;
    expect(rateLimited(slot, 2, T0)).toBeNull();
    expect(rateLimited(slot, 2, T0)).toBeNull();
    expect(rateLimited(slot, 2, T0)).toBe(1);
  });

  it('refills at `limit` per second, never past the burst', () => {
    const slot = createSlots(['k'], fixtures, null, 2, { nowMs: T0 }).get('k')!;
    rateLimited(slot, 2, T0);
    rateLimited(slot, 2, T0);
    expect(rateLimited(slot, 2, T0 + 499)).toBe(1);
    expect(rateLimited(slot, 2, T0 + 1000)).toBeNull();
    // A long idle spell refills to the burst size, not beyond.
    for (let i = 0; i < 2; i++) expect(rateLimited(slot, 2, T0 + 60_000)).toBeNull();
    expect(rateLimited(slot, 2, T0 + 60_000)).toBe(1);
  });

  it('is off without a limit', () => {
    const slot = createSlots(['k'], fixtures, null, undefined, { nowMs: T0 }).get('k')!;
    for (let i = 0; i < 100; i++) expect(rateLimited(slot, undefined, T0)).toBeNull();
  });
});

describe('createSlots and resetSlot', () => {
  it('one slot per distinct key, `sim-key` when none is given', () => {
    expect([...createSlots(['a', 'b', 'a'], fixtures, null, undefined).keys()]).toEqual(['a', 'b']);
    expect([...createSlots([], fixtures, null, undefined).keys()]).toEqual(['sim-key']);
  });

  it('reset gives a fresh account under the same name and empties the journal', () => {
    const slot = createSlots(['k'], fixtures, null, undefined).get('k')!;
    const before = slot.account;
    slot.journal.push({ seq: 1, time: '', serviceTime: '', method: 'GET', path: '/v1/app', query: {}, status: 200 });
    resetSlot(slot, fixtures);
    expect(slot.account).not.toBe(before);
    expect(slot.account.name).toBe(before.name);
    expect(slot.journal).toEqual([]);
  });
});
