/**
 * A Baseline as written (schemas/v1/baseline.json), the checks JSON Schema cannot make (rings, apps
 * and dates that must exist), and the time rule of exceptions (docs/baselines.md).
 */
import type { Problem } from '../model.js';
import { toPointer } from '../paths.js';
import type { AuthoredRecord } from './types.js';
import type { Segment } from '../yaml-types.js';

export type Settings = Record<string, unknown>;
export interface AppEntry extends Settings {
  app: string;
  name?: string;
  rings?: string[];
}
export interface OverrideEntry extends Settings {
  rings?: string[];
  apps?: string[];
  reason?: string;
}
export interface ExceptionEntry extends Settings {
  app: string;
  ring?: string;
  action: 'omit' | 'override';
  reason: string;
  owner: string;
  expires?: string;
}
export interface BaselineSpec {
  rings: Record<string, string>;
  maxRemoved?: number;
  defaults?: Settings;
  apps: AppEntry[];
  overrides?: OverrideEntry[];
  exceptions?: ExceptionEntry[];
}

/** Fields of an entry that are not settings (they say where it applies, or why). */
export const ENTRY_FIELDS = new Set(['app', 'name', 'rings', 'apps', 'ring', 'action', 'reason', 'owner', 'expires']);

export const DEFAULT_MAX_REMOVED = 5;
const DAY_MS = 86_400_000;

/** Lower-cased, each run of characters other than a-z and 0-9 one `-`, none at either end (may be empty). */
export function nameSlug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The app's part of object names (docs/baselines.md): its `nameSlug`, or `app` when that is empty. */
export function appSlug(app: string): string {
  return nameSlug(app) || 'app';
}

/** What an exception says, as written (no judgement of its expiry): shared by the plan, status and report views. */
export function exceptionFields(
  e: Pick<ExceptionEntry, 'app' | 'ring' | 'action' | 'owner' | 'reason' | 'expires'>,
): Pick<ExceptionEntry, 'app' | 'ring' | 'action' | 'owner' | 'reason' | 'expires'> {
  return {
    app: e.app,
    ...(e.ring !== undefined ? { ring: e.ring } : {}),
    action: e.action,
    owner: e.owner,
    reason: e.reason,
    ...(e.expires !== undefined ? { expires: e.expires } : {}),
  };
}

/**
 * Names of the generated objects: a flow and a deployment per app and ring `<baseline>.<app>.<ring>`;
 * a package per app `<baseline>.<app>`, or `<baseline>.<app>.<ring>` for a ring whose package
 * settings differ from those of the app's first ring (`export --as-baseline` predicts them too).
 */
export function generatedName(baseline: string, slug: string, ring?: string): string {
  return ring === undefined ? `${baseline}.${slug}` : `${baseline}.${slug}.${ring}`;
}

/** The first instant an exception no longer applies: the day after `expires`, 00:00 UTC. */
export function expiryEnd(expires: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(expires);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return t + DAY_MS;
}

/** Whole days from `now` until the exception ends (at least 1 while it applies). */
export function daysLeft(expires: string, now: Date): number {
  return Math.max(1, Math.ceil(((expiryEnd(expires) ?? now.getTime()) - now.getTime()) / DAY_MS));
}

export class BaselineProblems {
  readonly list: Problem[] = [];
  constructor(private readonly r: AuthoredRecord) {}

  at(segments: readonly Segment[], rule: string, message: string): void {
    const p = this.r.doc.locate(segments, 'value');
    this.list.push({
      file: this.r.doc.file,
      line: p.line,
      column: p.column,
      pointer: toPointer(segments),
      rule,
      message: this.r.prefix + message,
      severity: 'error',
    });
  }
}

/** Finds the app entry an override or exception names: by `app` (case-insensitive) or by `name`. */
export function appIndex(spec: BaselineSpec, written: string): number {
  const w = written.toLowerCase();
  return spec.apps.findIndex((a) => a.app.toLowerCase() === w || (a.name ?? appSlug(a.app)) === w);
}

/**
 * Two entries whose objects would share one name part (`<baseline>.<part>.<ring>`): says which entry
 * has it already and what to write in one of them, so the message can be acted on as it stands.
 */
function duplicateApp(first: AppEntry, index: number, slug: string): string {
  const from = first.name ? 'by its `name:`' : `from app "${first.app}"`;
  return `apps[${index}] already names its objects "${slug}" (${from}): give this entry or apps[${index}] another name part with \`name:\` (for example \`name: ${slug}-2\`), so their flows, packages and deployments get distinct names`;
}

/** Rings an app is rolled to, in the order `rings` lists them. */
export function ringsOf(spec: BaselineSpec, app: AppEntry): string[] {
  const all = Object.keys(spec.rings);
  return app.rings ? all.filter((r) => app.rings!.includes(r)) : all;
}

/** Every ring and app the baseline names must exist (FILE:LINE:COL each); dates are the schema's (a calendar day). */
export function checkReferences(spec: BaselineSpec, out: BaselineProblems): void {
  const rings = Object.keys(spec.rings);
  const ringList = rings.join(', ');
  const ring = (value: string, at: Segment[]): void => {
    if (!rings.includes(value)) out.at(at, 'baseline.unknown-ring', `ring "${value}" is not one of this baseline's rings (${ringList})`);
  };
  const appNames = spec.apps.map((a) => a.app).join(', ');
  const app = (value: string, at: Segment[]): number => {
    const i = appIndex(spec, value);
    if (i < 0) out.at(at, 'baseline.unknown-app', `app "${value}" is not one of this baseline's apps (${appNames})`);
    return i;
  };
  const slugs = new Map<string, number>();
  spec.apps.forEach((a, i) => {
    a.rings?.forEach((r, j) => ring(r, ['spec', 'apps', i, 'rings', j]));
    const slug = a.name ?? appSlug(a.app);
    const first = slugs.get(slug);
    if (first === undefined) slugs.set(slug, i);
    else out.at(['spec', 'apps', i, a.name ? 'name' : 'app'], 'baseline.duplicate-app', duplicateApp(spec.apps[first]!, first, slug));
  });
  spec.overrides?.forEach((o, i) => {
    o.rings?.forEach((r, j) => ring(r, ['spec', 'overrides', i, 'rings', j]));
    o.apps?.forEach((a, j) => app(a, ['spec', 'overrides', i, 'apps', j]));
  });
  spec.exceptions?.forEach((e, i) => {
    const at = ['spec', 'exceptions', i];
    const ai = app(e.app, [...at, 'app']);
    if (e.ring !== undefined) {
      if (!rings.includes(e.ring)) ring(e.ring, [...at, 'ring']);
      else if (ai >= 0 && !ringsOf(spec, spec.apps[ai]!).includes(e.ring))
        out.at(
          [...at, 'ring'],
          'baseline.unknown-ring',
          `app "${e.app}" is not rolled to ring "${e.ring}" (its rings: ${ringsOf(spec, spec.apps[ai]!).join(', ')})`,
        );
    }
  });
}
