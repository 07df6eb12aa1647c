/** `--from` / `--to` of `packsync report` (docs/reports.md#period): a day (UTC) or an ISO timestamp. */
import { UsageError } from './io.js';

const DAY = 86_400_000;
/** Without --from: this many days before --to (a month of patching). */
export const DEFAULT_DAYS = 30;

/**
 * A calendar day that exists: `Date.parse` rolls 2026-02-30 over into March, which would report a
 * period the user never asked for.
 */
function realDay(y: number, m: number, d: number): boolean {
  const at = new Date(Date.UTC(y, m - 1, d));
  return at.getUTCFullYear() === y && at.getUTCMonth() === m - 1 && at.getUTCDate() === d;
}

/**
 * A time without an offset is UTC, as the rest of the report is: `Date.parse` reads it in the
 * machine's time zone (10:00 was 15:00Z under TZ=America/New_York).
 */
function utc(value: string): string {
  return /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i.test(value) ? value : `${value}Z`;
}

function parseDate(value: string, flag: '--from' | '--to'): Date {
  const ymd = /^(\d{4})-(\d{2})-(\d{2})(T.*)?$/.exec(value);
  const day = ymd !== null && ymd[4] === undefined;
  const ms = ymd && realDay(Number(ymd[1]), Number(ymd[2]), Number(ymd[3])) ? Date.parse(day ? `${value}T00:00:00.000Z` : utc(value)) : NaN;
  if (Number.isNaN(ms))
    throw new UsageError(`${flag} must be a date (2026-11-01) or an ISO timestamp (2026-11-01T08:00:00Z) (got "${value}")`);
  // A day given as --to includes the whole day.
  return new Date(day && flag === '--to' ? ms + DAY - 1 : ms);
}

export function reportPeriod(from: string | undefined, to: string | undefined): (now: Date) => { from: Date; to: Date } {
  // Checked before any API call: a typo costs nothing.
  const f = from === undefined ? undefined : parseDate(from, '--from');
  const t = to === undefined ? undefined : parseDate(to, '--to');
  if (f && t && f.getTime() > t.getTime()) throw new UsageError(`--from (${from}) is after --to (${to})`);
  return (now) => {
    const end = t ?? now;
    // Without --to the period ends at the service's clock, known only once it has answered.
    if (f && f.getTime() > end.getTime())
      throw new UsageError(
        `--from (${from}) is after the end of the period (now, ${end.toISOString()} by the service's clock); pass an earlier --from`,
      );
    return { from: f ?? new Date(end.getTime() - DEFAULT_DAYS * DAY), to: end };
  };
}
