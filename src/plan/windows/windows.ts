/**
 * Change windows and freezes (docs/policy.md): is a rollout allowed to move forward at an instant of
 * the service's clock, and if not, until when and why. Time zones and daylight saving come from
 * `Intl` (the runtime's IANA database): no offsets are written here. Pure: the instant is an argument.
 */
import type { DeploymentManifest, FlowManifest, WindowsSpec } from '../../manifests/model.js';
import { WEEKDAYS, parseAllowRule, parseDay } from '../../manifests/window-values.js';
import type { AllowRule } from '../../manifests/window-values.js';

/** Each Flow manifest's `spec.windows` by flow name (flows without windows are left out). */
export function flowWindowsOf(flows: readonly FlowManifest[]): Map<string, WindowsSpec> {
  const out = new Map<string, WindowsSpec>();
  for (const f of flows) if (f.spec.windows) out.set(f.metadata.name, f.spec.windows);
  return out;
}

/** The windows that govern a deployment: its own, else its flow's (a Deployment's override as a whole). */
export function windowsFor(m: DeploymentManifest, flowWindows: ReadonlyMap<string, WindowsSpec>): WindowsSpec | undefined {
  return m.spec.windows ?? flowWindows.get(m.spec.flow);
}

export type WindowVerdict =
  | { open: true }
  /** `until`: the instant the next window opens (ISO), null when none within the search horizon. */
  | { open: false; until: string | null; reason: string; freeze?: { from: string; to: string; reason?: string } };

/** Wall-clock fields of an instant in a zone. */
interface Wall {
  /** 20261220 */
  day: number;
  weekday: number;
  /** Minute of the day. */
  minute: number;
  y: number;
  m: number;
  d: number;
}

/** How far ahead the next opening is looked for: a freeze of most of a year still finds its end. */
const HORIZON_DAYS = 400;

const formatters = new Map<string, Intl.DateTimeFormat>();

function wall(t: number, zone: string): Wall {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(zone, f);
  }
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(t))) parts[p.type] = p.value;
  const y = Number(parts.year);
  const m = Number(parts.month);
  const d = Number(parts.day);
  return {
    y,
    m,
    d,
    day: y * 10_000 + m * 100 + d,
    weekday: (WEEKDAYS as readonly string[]).indexOf(parts.weekday ?? ''),
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** Wall time as one comparable number (day and minute). */
const wallKey = (w: Wall): number => w.day * 10_000 + w.minute;

/** The zone's offset from UTC at instant `t`, in ms (its wall clock minus UTC, to the minute). */
function offsetAt(t: number, zone: string): number {
  const w = wall(t, zone);
  const asUtc = Date.UTC(w.y, w.m - 1, w.d, 0, w.minute);
  return asUtc - Math.floor(t / 60_000) * 60_000;
}

/**
 * The first instant whose wall clock in `zone` reads (y, m, d, minute): for a time that exists twice
 * (the hour repeated when clocks go back) the earlier one; for a time skipped by a jump forward, the
 * moment of the jump. `minute` may be 1440 (24:00: the next day's midnight). The zone's offsets
 * around the day come from `Intl`: wall time runs backwards at a fall-back, so no search over wall
 * time is used.
 */
export function zonedInstant(y: number, m: number, d: number, minute: number, zone: string): number {
  const naive = Date.UTC(y, m - 1, d, 0, minute);
  const n = new Date(naive);
  const target =
    (n.getUTCFullYear() * 10_000 + (n.getUTCMonth() + 1) * 100 + n.getUTCDate()) * 10_000 + n.getUTCHours() * 60 + n.getUTCMinutes();
  // Offsets in force within a day and a half either side: one, or two around a change.
  const offsets = new Set([offsetAt(naive - 129_600_000, zone), offsetAt(naive, zone), offsetAt(naive + 129_600_000, zone)]);
  const exact = [...offsets].map((o) => naive - o).filter((c) => wallKey(wall(c, zone)) === target);
  if (exact.length > 0) return Math.min(...exact);
  // Skipped: the jump lies between the candidates; wall time only moves forward across it.
  let lo = naive - Math.max(...offsets);
  let hi = naive - Math.min(...offsets);
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
    if (wallKey(wall(mid, zone)) >= target) hi = mid;
    else lo = mid;
  }
  return wallKey(wall(lo, zone)) >= target ? lo : hi;
}

interface Parsed {
  zone: string;
  allow: AllowRule[] | null;
  freezes: { from: number; to: number; spec: { from: string; to: string; reason?: string } }[];
}

function parse(spec: WindowsSpec): Parsed {
  return {
    zone: spec.timezone,
    allow: spec.allow ? spec.allow.map(parseAllowRule) : null,
    freezes: (spec.freeze ?? []).map((f) => ({ from: parseDay(f.from), to: parseDay(f.to), spec: f })),
  };
}

/**
 * Whether an allow rule holds instant `t`: each occurrence spans the instants from its start to its
 * end on the wall clock, judged as instants, so a window across a fall-back stays open through the
 * repeated hour instead of closing and opening again.
 */
function allowed(p: Parsed, t: number, w: Wall): boolean {
  if (!p.allow) return true;
  // An occurrence that holds t began on t's wall day or the day before (one closing the next day).
  const days = [-1, 0].map((i) => new Date(Date.UTC(w.y, w.m - 1, w.d + i)));
  return p.allow.some((r) =>
    days.some((day) => {
      if (!r.days.has(day.getUTCDay())) return false;
      const [y, m, d] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
      const start = zonedInstant(y, m, d, r.start, p.zone);
      const end = zonedInstant(y, m, d + (r.end > r.start ? 0 : 1), r.end, p.zone);
      return t >= start && t < end;
    }),
  );
}

function openAt(p: Parsed, t: number): { open: boolean; freeze?: Parsed['freezes'][number] } {
  const w = wall(t, p.zone);
  const freeze = p.freezes.find((f) => w.day >= f.from && w.day <= f.to);
  if (freeze) return { open: false, freeze };
  return { open: allowed(p, t, w) };
}

/**
 * The first instant after `t` at which the verdict turns open. Candidates are each window's start
 * and the midnight after each freeze, walked day by day so the search stops at the first one.
 */
function nextOpening(p: Parsed, t: number): number | null {
  const first = wall(t, p.zone);
  for (let i = 0; i <= HORIZON_DAYS; i++) {
    const day = new Date(Date.UTC(first.y, first.m - 1, first.d + i));
    const [y, m, d] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
    const key = y * 10_000 + m * 100 + d;
    const starts: number[] = [];
    if (p.freezes.some((f) => nextDay(f.to) === key)) starts.push(0);
    for (const r of p.allow ?? []) if (r.days.has(day.getUTCDay())) starts.push(r.start);
    const found = starts
      .map((minute) => zonedInstant(y, m, d, minute, p.zone))
      .filter((c) => c > t)
      .sort((a, b) => a - b)
      .find((c) => openAt(p, c).open);
    if (found !== undefined) return found;
  }
  return null;
}

function nextDay(key: number): number {
  const n = new Date(Date.UTC(Math.floor(key / 10_000), (Math.floor(key / 100) % 100) - 1, (key % 100) + 1));
  return n.getUTCFullYear() * 10_000 + (n.getUTCMonth() + 1) * 100 + n.getUTCDate();
}

/** The verdict of `spec` at instant `now` (the service's clock). */
export function windowVerdict(spec: WindowsSpec, now: Date): WindowVerdict {
  const p = parse(spec);
  const t = now.getTime();
  const here = openAt(p, t);
  if (here.open) return { open: true };
  const next = nextOpening(p, t);
  const opens = next === null ? 'no window opens in the next 400 days' : `waits for window ${describe(next, p.zone)}`;
  if (here.freeze) {
    const f = here.freeze.spec;
    const why = `frozen: ${f.reason ?? 'freeze'} (${f.from} to ${f.to} ${p.zone})`;
    return { open: false, until: next === null ? null : new Date(next).toISOString(), reason: `${why}; ${opens}`, freeze: f };
  }
  return { open: false, until: next === null ? null : new Date(next).toISOString(), reason: opens };
}

/** `Mon 08:00 Europe/Oslo (2026-11-30)`: the weekday and time in the zone, with the date so a far one is clear. */
export function describe(t: number, zone: string): string {
  const w = wall(t, zone);
  const hh = String(Math.floor(w.minute / 60)).padStart(2, '0');
  const mm = String(w.minute % 60).padStart(2, '0');
  const date = `${w.y}-${String(w.m).padStart(2, '0')}-${String(w.d).padStart(2, '0')}`;
  return `${WEEKDAYS[w.weekday] ?? '?'} ${hh}:${mm} ${zone} (${date})`;
}
