/**
 * What a plan says about each Baseline (docs/baselines.md): a header line summarising it, a line
 * per exception that expired (the baseline applies to that app again), and the blast guard: one
 * change of a baseline that removes more than its `maxRemoved` flows or deployments is a plan-wide
 * error unless `--allow-shrink`.
 */
import type { BaselineException, BaselineSummary, DesiredModel } from '../manifests/model.js';
import type { ExceptionFacts, ExpiredException, Plan } from './types.js';
import { exceptionFields, expiryEnd } from '../manifests/kinds/baseline-spec.js';
import type { InventoryEntry } from '../state/inventory-types.js';

/** Whether the entry was recorded from `file` (entries keep it relative to the repository, sources to the applied path). */
function fromFile(e: InventoryEntry | undefined, file: string): boolean {
  return e?.file === undefined || e.file === file || e.file.endsWith(`/${file}`);
}

const DAY_MS = 86_400_000;

/** Fills `plan.baselines` and adds the guard's errors; `now` is the service's clock when known. */
export function reviewBaselines(
  plan: Plan,
  desired: DesiredModel,
  now: Date,
  o: { allowShrink: boolean; entries: Readonly<Record<string, InventoryEntry>> },
): void {
  const baselines = desired.baselines ?? [];
  if (baselines.length === 0) return;
  const lines: string[] = [];
  const expired: ExpiredException[] = [];
  for (const b of baselines) {
    lines.push(headerLine(b, now));
    for (const e of b.exceptions) {
      if (!expiredAt(e, now)) continue;
      lines.push(expiredLine(b, e));
      expired.push({ ...exceptionFacts(b, e), expires: e.expires ?? '' });
    }
    const guard = shrinkError(plan, b, o.entries);
    if (guard && !o.allowShrink) plan.errors.push(guard);
  }
  plan.baselines = lines;
  if (expired.length > 0) plan.expiredExceptions = expired;
}

/** One exception as plan, status and report name it. */
export function exceptionFacts(b: Pick<BaselineSummary, 'name'>, e: BaselineException): ExceptionFacts {
  return {
    baseline: b.name,
    ...exceptionFields(e),
    at: `${e.source.file}:${e.source.line}:${e.source.column}`,
  };
}

/** Whether the exception no longer applies at `now` (after its `expires` day, UTC: expiryEnd). */
export function expiredAt(e: { expires?: string | undefined }, now: Date): boolean {
  const end = endOf(e.expires);
  return end !== undefined && now.getTime() >= end;
}

function endOf(expires: string | undefined): number | undefined {
  return expires === undefined ? undefined : expiryEnd(expires);
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** `Baseline standard-apps: 3 apps × 2 rings (1 override, 1 exception expiring in 9 days) → 6 flows`. */
export function headerLine(b: BaselineSummary, now: Date): string {
  const parts: string[] = [];
  if (b.overrides > 0) parts.push(plural(b.overrides, 'override'));
  const active = b.exceptions.filter((e) => !expiredAt(e, now));
  const expired = b.exceptions.length - active.length;
  if (active.length > 0) {
    const ends = active.map((e) => endOf(e.expires)).filter((t): t is number => t !== undefined);
    const soonest = ends.length > 0 ? Math.max(1, Math.ceil((Math.min(...ends) - now.getTime()) / DAY_MS)) : undefined;
    // With several, only the soonest is told, and said to be the soonest (not "2 exceptions expiring in 1 day").
    const when =
      soonest === undefined
        ? ''
        : active.length === 1
          ? ` expiring in ${plural(soonest, 'day')}`
          : `, the next expiring in ${plural(soonest, 'day')}`;
    parts.push(`${plural(active.length, 'exception')}${when}`);
  }
  if (expired > 0) parts.push(`${expired} expired`);
  const detail = parts.length > 0 ? ` (${parts.join(', ')})` : '';
  return `Baseline ${b.name}: ${plural(b.apps, 'app')} × ${plural(b.rings, 'ring')}${detail} → ${plural(b.flows, 'flow')}`;
}

function expiredLine(b: BaselineSummary, e: BaselineException): string {
  const where = e.ring !== undefined ? ` in ring ${e.ring}` : '';
  return `Baseline ${b.name}: the exception for ${e.app}${where} (${e.action}, owner ${e.owner}: ${e.reason}) expired on ${e.expires ?? '?'}; the baseline applies to it again (${e.source.file}:${e.source.line}:${e.source.column})`;
}

/**
 * Flows and deployments of this baseline that this change removes from the desired set (a rename is
 * a move, not counted). The baseline's own objects are those its file recorded under its name (a
 * hand-written `NAME.x` in another file is not); one an earlier apply already kept as an orphan
 * (`leftGit`) was counted in that change, and is not again while it waits to be pruned.
 */
function shrinkError(plan: Plan, b: BaselineSummary, entries: Readonly<Record<string, InventoryEntry>>): string | undefined {
  const removed = { Flow: 0, Deployment: 0 };
  for (const o of plan.objects) {
    if ((o.kind !== 'Flow' && o.kind !== 'Deployment') || o.name.includes('#')) continue;
    if (o.change !== 'delete' && o.change !== 'orphan') continue;
    const e = entries[o.key];
    if (o.name.startsWith(`${b.name}.`) && !e?.leftGit && fromFile(e, b.source.file)) removed[o.kind]++;
  }
  if (removed.Flow <= b.maxRemoved && removed.Deployment <= b.maxRemoved) return undefined;
  const at = `${b.source.file}:${b.source.line}:${b.source.column}`;
  return `Baseline ${b.name} (${at}): this change removes ${plural(removed.Flow, 'flow')} and ${plural(removed.Deployment, 'deployment')}, more than maxRemoved (${b.maxRemoved}); nothing is applied. Plan or apply with --allow-shrink if that is meant, or raise spec.maxRemoved`;
}
