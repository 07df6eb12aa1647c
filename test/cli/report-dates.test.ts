/**
 * `packsync report`'s period flags (src/cli/report-dates.ts): regressions of the operator audit, a day
 * that does not exist rolled over into the next month and a --from after the service's now made a
 * period that runs backwards; both are usage errors naming the flag.
 */
import { describe, expect, it } from 'vitest';
import { reportPeriod } from '../../src/cli/report-dates.js';
import { UsageError } from '../../src/cli/io.js';

const NOW = new Date('2026-11-30T12:00:00.000Z');

describe('report --from / --to', () => {
  it('a day that does not exist is refused instead of rolled into the next month', () => {
    for (const bad of ['2026-02-30', '2026-11-31', '2026-02-29', '2026-00-10', '2026-02-30T08:00:00Z'])
      expect(() => reportPeriod(bad, undefined), bad).toThrow(/--from must be a date/);
    expect(() => reportPeriod(undefined, '2026-04-31')).toThrow(/--to must be a date/);
    expect(() => reportPeriod('2026-02-30', undefined)).toThrow(UsageError);
  });

  it('real days and timestamps pass; a leap day in a leap year is a day; --to includes its whole day', () => {
    const p = reportPeriod('2028-02-29', '2028-03-01')(NOW);
    expect(p.from.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(p.to.toISOString()).toBe('2028-03-01T23:59:59.999Z');
    expect(reportPeriod('2026-03-01T00:30:00+01:00', undefined)(NOW).from.toISOString()).toBe('2026-02-28T23:30:00.000Z');
  });

  it('a --from after the end of the period is refused, with --to and without it (the end is then the service clock)', () => {
    expect(() => reportPeriod('2026-11-30', '2026-11-01')).toThrow(/--from \(2026-11-30\) is after --to/);
    const alone = reportPeriod('2026-12-01', undefined);
    expect(() => alone(NOW)).toThrow(UsageError);
    expect(() => alone(NOW)).toThrow(/--from \(2026-12-01\) is after the end of the period \(now, 2026-11-30T12:00:00.000Z/);
    expect(alone(new Date('2026-12-02T00:00:00Z')).from.toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it("report-time-without-offset-is-utc: --from 2026-11-29T10:00:00 is 10:00Z whatever the machine's time zone", () => {
    const was = process.env.TZ;
    // Node reads TZ again when it is assigned: the machine is in New York for this test.
    process.env.TZ = 'America/New_York';
    try {
      expect(new Date(2026, 10, 29, 10).toISOString()).toBe('2026-11-29T15:00:00.000Z');
      const p = reportPeriod('2026-11-29T10:00:00', '2026-11-29T12:30:00.250')(NOW);
      expect(p.from.toISOString()).toBe('2026-11-29T10:00:00.000Z');
      expect(p.to.toISOString()).toBe('2026-11-29T12:30:00.250Z');
      // An offset given is kept.
      expect(reportPeriod('2026-11-29T10:00:00-05:00', undefined)(NOW).from.toISOString()).toBe('2026-11-29T15:00:00.000Z');
      expect(reportPeriod('2026-11-29T10:00:00+0100', undefined)(NOW).from.toISOString()).toBe('2026-11-29T09:00:00.000Z');
    } finally {
      if (was === undefined) delete process.env.TZ;
      else process.env.TZ = was;
    }
  });

  it('without --from the period is the 30 days before its end', () => {
    const p = reportPeriod(undefined, undefined)(NOW);
    expect(p.to).toEqual(NOW);
    expect(NOW.getTime() - p.from.getTime()).toBe(30 * 86_400_000);
  });
});
