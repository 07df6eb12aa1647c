/**
 * `POST /_sim/clock {timeScale}` changes the clock's speed midway without a jump. A test lets the
 * CLI's waits run at x600 and then moves time only by its own advances: the example gate test
 * flaked when a loaded machine's slow applies added virtual hours between its steps.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/simulator/clock.js';
import { rawSim } from './http.js';

describe('the simulator clock speed', () => {
  it('setScale keeps the virtual time where it is and runs at the new speed from there', () => {
    let real = 1_000;
    const clock = new VirtualClock(600, 0, () => real);
    real += 2_000;
    expect(clock.now()).toBe(1_200_000);
    clock.advance(60);
    clock.setScale(1);
    expect(clock.now()).toBe(1_260_000);
    real += 2_000;
    expect(clock.now()).toBe(1_262_000);
    expect(clock.scale).toBe(1);
  });

  it('POST /_sim/clock sets timeScale, alone or with an advance, and refuses one below 1 naming the field', async () => {
    const s = await rawSim({ timeScale: 600 });
    try {
      const set = await s.ok<{ timeScale: number; epochMs: number }>('POST', '/_sim/clock', { timeScale: 1 });
      expect(set.timeScale).toBe(1);
      const moved = await s.ok<{ timeScale: number; epochMs: number }>('POST', '/_sim/clock', { advanceSeconds: 3600, timeScale: 2 });
      expect(moved.timeScale).toBe(2);
      expect(moved.epochMs - set.epochMs).toBeGreaterThanOrEqual(3_600_000);
      // Two seconds of virtual time per real second, not 600: far less than a minute passes here.
      expect(moved.epochMs - set.epochMs).toBeLessThan(3_660_000);
      for (const bad of [{ timeScale: 0 }, { timeScale: 'fast' }, {}]) {
        const r = await s.call('POST', '/_sim/clock', bad);
        expect(r.status, JSON.stringify(bad)).toBe(400);
        expect(Object.keys((r.json as { errors: Record<string, unknown> }).errors)).toEqual([
          'timeScale' in bad ? 'timeScale' : 'advanceSeconds',
        ]);
      }
      expect((await s.ok<{ timeScale: number }>('GET', '/_sim/clock')).timeScale).toBe(2);
    } finally {
      await s.sim.close();
    }
  });
});
