/**
 * `spec.windows` values as people write them (`Mon-Thu 08:00-16:00`, `2026-12-20`) and the numbers
 * the window check uses (docs/policy.md). Shared by validation (window-rules.ts) and the planner
 * (plan/windows/windows.ts), so both read a window the same way.
 */

export const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** One allowed window: the weekdays it starts on (0 = Sunday) and its minutes of the day. */
export interface AllowRule {
  text: string;
  days: ReadonlySet<number>;
  /** Minute of the day it opens, 0..1439. */
  start: number;
  /** Minute of the day it closes, 1..1440; at or before `start`: it closes the next day. */
  end: number;
}

/** Read loosely, so that a wrong day or hour can be named (`parseAllowRule`'s messages). */
const RULE = /^([A-Z][a-z]{2})(?:-([A-Z][a-z]{2}))? (\d{2}):(\d{2})-(\d{2}):(\d{2})$/;

/**
 * The `allow` item pattern of schemas/v1/flow.json and deployment.json (test/manifests pins them
 * equal): a real day, a start 00:00 to 23:59, an end 00:00 to 23:59 or 24:00.
 */
export const WINDOW_PATTERN =
  '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)(-(Mon|Tue|Wed|Thu|Fri|Sat|Sun))? ([01][0-9]|2[0-3]):[0-5][0-9]-(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$';
const WINDOW = new RegExp(WINDOW_PATTERN);

/**
 * Whether the schema accepts the entry. The schema reports every other entry (schema-problems.ts,
 * with `windowMistake`'s words), so only these get window-rules.ts' range check: one message per entry.
 */
export function looksLikeWindow(text: string): boolean {
  return WINDOW.test(text);
}

/** What is wrong with an `allow` entry the schema refused, in words (the schema's message for it). */
export function windowMistake(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  try {
    parseAllowRule(text);
  } catch (e) {
    return (e as Error).message;
  }
  return `"${text}" is not a window: write days and hours like "Mon-Thu 08:00-16:00" or "Sat 10:00-12:00"`;
}

/** Parses one `allow` entry; throws a TypeError that says what is wrong. */
export function parseAllowRule(text: string): AllowRule {
  const m = RULE.exec(text);
  if (!m) throw new TypeError(`"${text}" is not a window: write days and hours like "Mon-Thu 08:00-16:00" or "Sat 10:00-12:00"`);
  const [, d1, d2, h1, m1, h2, m2] = m as unknown as [string, string, string | undefined, string, string, string, string];
  const first = dayIndex(d1, text);
  const last = d2 === undefined ? first : dayIndex(d2, text);
  const start = minutes(h1, m1, text, false);
  const end = minutes(h2, m2, text, true);
  if (start === end) throw new TypeError(`"${text}" opens and closes at the same minute: it would never be open`);
  const days = new Set<number>();
  // A range runs forward through the week: `Fri-Mon` is Friday, Saturday, Sunday, Monday.
  for (let d = first; ; d = (d + 1) % 7) {
    days.add(d);
    if (d === last) break;
  }
  return { text, days, start, end };
}

function dayIndex(day: string, text: string): number {
  const i = (WEEKDAYS as readonly string[]).indexOf(day);
  if (i < 0) throw new TypeError(`"${text}": "${day}" is not a day (write Mon, Tue, Wed, Thu, Fri, Sat or Sun)`);
  return i;
}

function minutes(h: string, m: string, text: string, isEnd: boolean): number {
  const hh = Number(h);
  const mm = Number(m);
  const total = hh * 60 + mm;
  if (mm > 59 || hh > 24 || (hh === 24 && mm !== 0))
    throw new TypeError(`"${text}": ${h}:${m} is not a time of day (00:00 to 23:59, or 24:00 to end a window)`);
  if (hh === 24 && !isEnd)
    throw new TypeError(`"${text}": 24:00 can only end a window (it is the end of the day); a window starts at 00:00 to 23:59`);
  return total;
}

/** A calendar day `YYYY-MM-DD` as a comparable number (20261220); throws for a day that does not exist. */
export function parseDay(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) throw new TypeError(`"${text}" is not a date (write YYYY-MM-DD)`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(y, mo - 1, d));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d)
    throw new TypeError(`"${text}" is not a day of the calendar`);
  return y * 10_000 + mo * 100 + d;
}

/** True when the name is a time zone this runtime knows (IANA names, through Intl: no offset tables here). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
