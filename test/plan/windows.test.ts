/**
 * The window arithmetic (docs/policy.md), pure: daylight saving through Intl, windows past midnight,
 * day ranges that wrap the week, a start time the clock skips, and freezes as whole days in the zone.
 */
import { describe, expect, it } from 'vitest';
import { windowVerdict, zonedInstant } from '../../src/plan/windows/windows.js';

const OSLO = { timezone: 'Europe/Oslo', allow: ['Mon-Thu 08:00-16:00', 'Sat 10:00-12:00'] };
const at = (iso: string): Date => new Date(iso);

describe('windowVerdict', () => {
  it('is open inside a window and closed outside, naming the next start in the zone', () => {
    expect(windowVerdict(OSLO, at('2026-11-25T08:00:00Z'))).toEqual({ open: true });
    expect(windowVerdict(OSLO, at('2026-11-26T15:30:00Z'))).toMatchObject({
      open: false,
      until: '2026-11-28T09:00:00.000Z',
      reason: 'waits for window Sat 10:00 Europe/Oslo (2026-11-28)',
    });
  });

  it('follows daylight saving in both directions (Monday 08:00 Oslo is 06:00 UTC in summer, 07:00 in winter)', () => {
    expect(windowVerdict(OSLO, at('2027-03-28T12:00:00Z'))).toMatchObject({ until: '2027-03-29T06:00:00.000Z' });
    expect(windowVerdict(OSLO, at('2027-10-31T12:00:00Z'))).toMatchObject({ until: '2027-11-01T07:00:00.000Z' });
    // 15:30 local is still inside on the Thursday after the change, 16:00 is not.
    expect(windowVerdict(OSLO, at('2027-04-01T13:30:00Z'))).toEqual({ open: true });
    expect(windowVerdict(OSLO, at('2027-04-01T14:00:00Z')).open).toBe(false);
  });

  it('opens a window whose start the clock skips at the moment of the jump', () => {
    expect(zonedInstant(2027, 3, 28, 150, 'Europe/Oslo')).toBe(Date.parse('2027-03-28T01:00:00Z'));
    expect(windowVerdict({ timezone: 'Europe/Oslo', allow: ['Sun 02:30-04:00'] }, at('2027-03-27T12:00:00Z'))).toMatchObject({
      until: '2027-03-28T01:00:00.000Z',
    });
  });

  it('keeps a window across a fall-back open through the repeated hour, and opens it at the first of two equal times (regression: it opened, closed and opened again, and until named the later one)', () => {
    // Oslo, 31 October 2027: 03:00 CEST goes back to 02:00 CET at 01:00Z; 02:30 happens at 00:30Z and 01:30Z.
    expect(zonedInstant(2027, 10, 31, 150, 'Europe/Oslo')).toBe(Date.parse('2027-10-31T00:30:00Z'));
    const oslo = { timezone: 'Europe/Oslo', allow: ['Sun 02:30-04:00'] };
    expect(windowVerdict(oslo, at('2027-10-31T00:00:01Z'))).toMatchObject({ open: false, until: '2027-10-31T00:30:00.000Z' });
    for (const t of ['2027-10-31T00:30:01Z', '2027-10-31T01:00:01Z', '2027-10-31T01:30:01Z', '2027-10-31T02:59:00Z'])
      expect(windowVerdict(oslo, at(t)), t).toEqual({ open: true });
    expect(windowVerdict(oslo, at('2027-10-31T03:00:00Z')).open).toBe(false); // 04:00 CET
    // New York, 7 November 2027: 02:00 EDT goes back to 01:00 EST at 06:00Z; 01:30-03:00 is 05:30Z to 08:00Z, whole.
    const ny = { timezone: 'America/New_York', allow: ['Sun 01:30-03:00'] };
    expect(windowVerdict(ny, at('2027-11-07T05:00:00Z'))).toMatchObject({ open: false, until: '2027-11-07T05:30:00.000Z' });
    for (const t of ['2027-11-07T05:30:00Z', '2027-11-07T06:10:00Z', '2027-11-07T06:30:00Z', '2027-11-07T07:59:00Z'])
      expect(windowVerdict(ny, at(t)), t).toEqual({ open: true });
    expect(windowVerdict(ny, at('2027-11-07T08:00:00Z')).open).toBe(false);
  });

  it('runs a window past midnight into the next day, and a day range around the weekend', () => {
    const night = { timezone: 'America/New_York', allow: ['Fri 22:00-06:00'] };
    expect(windowVerdict(night, at('2026-12-05T08:00:00Z'))).toEqual({ open: true }); // Sat 03:00 in New York
    expect(windowVerdict(night, at('2026-12-05T12:00:00Z'))).toMatchObject({ until: '2026-12-12T03:00:00.000Z' });
    const weekend = { timezone: 'UTC', allow: ['Fri-Mon 00:00-24:00'] };
    expect(windowVerdict(weekend, at('2026-11-30T10:00:00Z'))).toEqual({ open: true }); // Monday
    expect(windowVerdict(weekend, at('2026-12-01T10:00:00Z'))).toMatchObject({ until: '2026-12-04T00:00:00.000Z' });
  });

  it('holds a freeze across the new year as whole days in the zone, `to` included, then the next window', () => {
    const w = { ...OSLO, freeze: [{ from: '2026-12-20', to: '2027-01-03', reason: 'year-end freeze' }] };
    const v = windowVerdict(w, at('2026-12-21T09:00:00Z'));
    expect(v).toMatchObject({ open: false, until: '2027-01-04T07:00:00.000Z' });
    expect(v.open === false && v.reason).toBe(
      'frozen: year-end freeze (2026-12-20 to 2027-01-03 Europe/Oslo); waits for window Mon 08:00 Europe/Oslo (2027-01-04)',
    );
    // Without `allow` only the freeze applies: open from midnight after its last day, Oslo time.
    const only = { timezone: 'Europe/Oslo', freeze: w.freeze };
    expect(windowVerdict(only, at('2027-01-03T22:59:00Z')).open).toBe(false);
    expect(windowVerdict(only, at('2027-01-03T23:00:00Z'))).toEqual({ open: true });
  });
});
