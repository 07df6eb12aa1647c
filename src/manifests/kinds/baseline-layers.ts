/**
 * Precedence of a Baseline's settings for one app in one ring (docs/baselines.md): defaults < the
 * app entry < overrides naming a ring or an app < overrides naming both < an exception. Two
 * overrides of one specificity that set one field differently for the same app and ring are an
 * error at both, never a silent pick.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Origin } from '../generated-document.js';
import type { Segment } from '../yaml-types.js';
import type { BaselineProblems, BaselineSpec, ExceptionEntry, Settings } from './baseline-spec.js';
import { appIndex, ENTRY_FIELDS } from './baseline-spec.js';

interface Layer {
  label: string;
  at: Segment[];
  settings: Settings;
  /** 0 defaults, 1 app entry, 2 override (ring or app), 3 override (both), 4 exception. */
  rank: number;
}

export interface Resolved {
  /** Setting → value. */
  values: Settings;
  /** Setting → where it was written. */
  origins: Map<string, Origin>;
}

/** The active exceptions by app index and ring (`*`: every ring of the app). */
export type ActiveExceptions = Map<string, { index: number; entry: ExceptionEntry }>;

export const exceptionSlot = (app: number, ring: string): string => `${app}\u0000${ring}`;

function settingsOf(entry: Settings): Settings {
  const out: Settings = {};
  for (const [k, v] of Object.entries(entry)) if (!ENTRY_FIELDS.has(k)) out[k] = v;
  return out;
}

function layersFor(
  spec: BaselineSpec,
  app: number,
  ring: string,
  exception: { index: number; entry: ExceptionEntry } | undefined,
): Layer[] {
  const layers: Layer[] = [];
  if (spec.defaults) layers.push({ label: 'defaults', at: ['spec', 'defaults'], settings: spec.defaults, rank: 0 });
  layers.push({ label: `apps[${app}]`, at: ['spec', 'apps', app], settings: settingsOf(spec.apps[app]!), rank: 1 });
  spec.overrides?.forEach((o, i) => {
    const ringOk = o.rings === undefined || o.rings.includes(ring);
    const appOk = o.apps === undefined || o.apps.some((a) => appIndex(spec, a) === app);
    if (!ringOk || !appOk) return;
    const rank = o.rings !== undefined && o.apps !== undefined ? 3 : 2;
    layers.push({ label: `overrides[${i}]`, at: ['spec', 'overrides', i], settings: settingsOf(o), rank });
  });
  if (exception?.entry.action === 'override') {
    const at = ['spec', 'exceptions', exception.index];
    layers.push({ label: `exceptions[${exception.index}]`, at, settings: settingsOf(exception.entry), rank: 4 });
  }
  return layers.sort((a, b) => a.rank - b.rank);
}

/**
 * The settings of one app in one ring, each with its origin. `seen` collects contradictions
 * already reported, so one pair of overrides is reported once, not once per app and ring.
 */
export function resolveSettings(
  spec: BaselineSpec,
  where: { app: number; ring: string; exception?: { index: number; entry: ExceptionEntry } },
  problems: BaselineProblems,
  seen: Set<string>,
): Resolved {
  const values: Settings = {};
  const origins = new Map<string, Origin>();
  const setBy = new Map<string, Layer>();
  for (const layer of layersFor(spec, where.app, where.ring, where.exception)) {
    for (const [field, value] of Object.entries(layer.settings)) {
      const before = setBy.get(field);
      // Equal values written with their keys in another order agree (`{track, minAge}` = `{minAge, track}`).
      if (before && before.rank === layer.rank && layer.rank >= 2 && !isDeepStrictEqual(before.settings[field], value)) {
        contradiction(before, layer, field, problems, seen);
      }
      values[field] = value;
      setBy.set(field, layer);
      origins.set(field, { at: [...layer.at, field], layer: layer.label });
    }
  }
  return { values, origins };
}

function contradiction(a: Layer, b: Layer, field: string, problems: BaselineProblems, seen: Set<string>): void {
  const key = `${a.label}\u0000${b.label}\u0000${field}`;
  if (seen.has(key)) return;
  seen.add(key);
  const what =
    'overrides of the same specificity set it differently for one app and ring; make one more specific (name apps and rings) or make them agree';
  problems.at(
    [...b.at, field],
    'baseline.override-conflict',
    `${field} contradicts ${a.label}.${field} (${JSON.stringify(a.settings[field])}): ${what}`,
  );
  problems.at(
    [...a.at, field],
    'baseline.override-conflict',
    `${field} contradicts ${b.label}.${field} (${JSON.stringify(b.settings[field])}): ${what}`,
  );
}
