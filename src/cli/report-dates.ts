/** `--from` / `--to` of `packsync report` (docs/reports.md#period): a day (UTC) or an ISO timestamp. */
import { UsageError } from './io.js';

const DAY = 86_400_000;
/** Without --from: this many days before --to (a month of patching). */
export const DEFAULT_DAYS = 30;

function parseDate(value: string, flag: '--from' | '--to'): Date {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const ms = day ? Date.parse(`${value}T00:00:00.000Z`) : /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
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
    return { from: f ?? new Date(end.getTime() - DEFAULT_DAYS * DAY), to: end };
  };
}
