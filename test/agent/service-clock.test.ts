import { describe, expect, it } from 'vitest';
import { ServiceClockRate } from '../../src/agent/service-clock.js';

describe('service clock rate', () => {
  it('a service clock 600× faster turns a 6 h soak into 36 s of local waiting (regression: the soak-end pass fired 6 real hours late)', () => {
    const c = new ServiceClockRate();
    for (let t = 0; t <= 20_000; t += 5_000) c.observe(t, 1_000_000 + t * 600);
    expect(c.rate()).toBeCloseTo(600, 5);
    expect(c.toLocal(6 * 3_600_000)).toBeCloseTo(36_000, 0);
  });

  it('a real service (rate 1, Date rounded to seconds) never makes a wait shorter', () => {
    const c = new ServiceClockRate();
    for (let t = 0; t <= 60_000; t += 3_700) c.observe(t, Math.floor((5_000_500 + t) / 1000) * 1000);
    expect(c.rate()).toBe(1);
    expect(c.toLocal(3_600_000)).toBe(3_600_000);
  });

  it('needs samples spanning minSpanMs of local time; no sample or a missing Date means rate 1', () => {
    const c = new ServiceClockRate(10_000);
    expect(c.rate()).toBe(1);
    c.observe(0, 0);
    c.observe(5_000, 3_000_000);
    expect(c.rate()).toBe(1);
    c.observe(10_000, null);
    c.observe(12_000, 7_200_000);
    expect(c.rate()).toBeCloseTo(600, 5);
  });

  it('follows the newest span: a clock that slows back to real time is seen as such', () => {
    const c = new ServiceClockRate(10_000, 4);
    for (let t = 0; t <= 20_000; t += 10_000) c.observe(t, t * 600);
    expect(c.rate()).toBeCloseTo(600, 5);
    for (let t = 30_000; t <= 60_000; t += 10_000) c.observe(t, 12_000_000 + (t - 20_000));
    expect(c.rate()).toBe(1);
    expect(new ServiceClockRate().toLocal(1000)).toBe(1000);
  });
});
