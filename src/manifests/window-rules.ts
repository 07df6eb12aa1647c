/**
 * Rules of `spec.windows` the schema cannot express (docs/policy.md): the time zone must be one the
 * runtime knows (IANA, through Intl), each window must be a real range of days and hours, and a
 * freeze must not end before it starts. Overlapping windows and freezes are fine.
 */
import { valueAt } from './paths.js';
import type { Segment } from './yaml-types.js';
import { isTimeZone, looksLikeWindow, parseAllowRule, parseDay } from './window-values.js';

export type WindowProblem = (segments: Segment[], rule: string, message: string) => void;

export function checkWindows(data: unknown, report: WindowProblem): void {
  const at: Segment[] = ['spec', 'windows'];
  const w = valueAt(data, at);
  if (w === null || typeof w !== 'object' || Array.isArray(w)) return;
  const { timezone, allow, freeze } = w as Record<string, unknown>;
  if (typeof timezone === 'string' && timezone !== '' && !isTimeZone(timezone))
    report(
      [...at, 'timezone'],
      'windows.timezone',
      `spec.windows.timezone "${timezone}" is not an IANA time zone (e.g. Europe/Oslo, America/New_York, UTC)`,
    );
  if (Array.isArray(allow))
    allow.forEach((text, i) => {
      if (typeof text !== 'string' || !looksLikeWindow(text)) return;
      try {
        parseAllowRule(text);
      } catch (e) {
        report([...at, 'allow', i], 'windows.range', `spec.windows.allow[${i}]: ${(e as Error).message}`);
      }
    });
  if (Array.isArray(freeze)) freeze.forEach((f, i) => checkFreeze(f, [...at, 'freeze', i], report));
}

function checkFreeze(f: unknown, at: Segment[], report: WindowProblem): void {
  if (f === null || typeof f !== 'object') return;
  const { from, to } = f as Record<string, unknown>;
  // A day that is not one of the calendar is the schema's problem (schema-problems.ts DATE_PATTERN), reported once there.
  const day = (v: unknown): number | undefined => {
    try {
      return typeof v === 'string' ? parseDay(v) : undefined;
    } catch {
      return undefined;
    }
  };
  const a = day(from);
  const b = day(to);
  if (a !== undefined && b !== undefined && b < a)
    report(
      [...at, 'to'],
      'windows.freeze-order',
      `spec.windows.freeze[${String(at.at(-1))}] ends (${String(to)}) before it starts (${String(from)})`,
    );
}
