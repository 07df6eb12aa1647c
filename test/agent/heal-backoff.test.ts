/** The per-object heal backoff on a fake clock: holds grow, end, are forgotten, and say when to wake. */
import { describe, expect, it } from 'vitest';
import { HealBackoff, nextHold } from '../../src/agent/heal-backoff.js';

const B = { baseMs: 2000, maxMs: 60_000 };

/** A clock the test moves by hand. */
function fakeClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('nextHold', () => {
  it('doubles the hold on every heal in a row, capped', () => {
    const b = { baseMs: 2000, maxMs: 300_000 };
    let h = nextHold(undefined, 0, b);
    const holds = [h.until];
    for (let i = 0; i < 10; i++) {
      h = nextHold(h, 0, b);
      holds.push(h.until);
    }
    expect(holds.slice(0, 5)).toEqual([2000, 4000, 8000, 16000, 32000]);
    expect(Math.max(...holds)).toBe(300_000);
  });
});

describe('HealBackoff', () => {
  it('holds an object healed once for baseMs, then lets it heal again', () => {
    const clock = fakeClock();
    const heals = new HealBackoff(clock.now, B);
    expect(heals.held()).toEqual([]);
    expect(heals.nextWakeAt()).toBeNull();
    heals.record([{ key: 'Deployment/a', drift: 'healed' }, { key: 'Deployment/b' }]);
    expect(heals.held()).toEqual(['Deployment/a']);
    expect(heals.nextWakeAt()).toBe(clock.now() + 2000);
    clock.advance(1999);
    expect(heals.held()).toEqual(['Deployment/a']);
    clock.advance(1);
    expect(heals.held()).toEqual([]);
    expect(heals.nextWakeAt()).toBeNull();
  });

  it('grows the hold only on a heal, not while the drift is held or reported', () => {
    const clock = fakeClock();
    const heals = new HealBackoff(clock.now, B);
    heals.record([{ key: 'k', drift: 'healed' }]);
    const first = heals.nextWakeAt();
    heals.record([{ key: 'k', drift: 'held' }]);
    heals.record([{ key: 'k', drift: 'reported' }]);
    expect(heals.nextWakeAt()).toBe(first);
    clock.advance(2000);
    heals.record([{ key: 'k', drift: 'healed' }]);
    expect(heals.nextWakeAt()).toBe(clock.now() + 4000);
    clock.advance(4000);
    heals.record([{ key: 'k', drift: 'healed' }]);
    expect(heals.nextWakeAt()).toBe(clock.now() + 8000);
  });

  it('forgets an object quiet for a whole cap after its hold ended, so its next heal is held for baseMs again', () => {
    const clock = fakeClock();
    const heals = new HealBackoff(clock.now, B);
    heals.record([{ key: 'k', drift: 'healed' }]);
    clock.advance(2000);
    heals.record([{ key: 'k', drift: 'healed' }]); // held 4 s now
    clock.advance(4000 + B.maxMs); // exactly a cap after the hold: not yet forgotten
    heals.record([{ key: 'k' }]);
    heals.record([{ key: 'k', drift: 'healed' }]);
    expect(heals.nextWakeAt()).toBe(clock.now() + 8000);
    clock.advance(8000 + B.maxMs + 1);
    heals.record([{ key: 'k' }]);
    heals.record([{ key: 'k', drift: 'healed' }]);
    expect(heals.nextWakeAt()).toBe(clock.now() + 2000);
  });

  it('wakes for the earliest hold still standing, not for one that already ended', () => {
    // Regression: the loop took the minimum over every remembered hold, so an ended one (kept for
    // its count) hid a standing one and no wake-up was scheduled for it.
    const clock = fakeClock();
    const heals = new HealBackoff(clock.now, B);
    heals.record([{ key: 'old', drift: 'healed' }]);
    clock.advance(3000);
    heals.record([{ key: 'new', drift: 'healed' }]);
    expect(heals.held()).toEqual(['new']);
    expect(heals.nextWakeAt()).toBe(clock.now() + 2000);
  });
});
