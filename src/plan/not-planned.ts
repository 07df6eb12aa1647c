/**
 * Objects a pass does not plan, written once for every kind: a suspended manifest, one whose names
 * do not resolve against the live state, and one deleted outside packsync while drift is only
 * reported; and what the objects depending on them see.
 */
import { ResolveError } from '../live/resolve.js';
import type { Manifest } from '../manifests/model.js';
import { positionOf } from '../manifests/positions.js';
import type { PlanContext, RefState } from './context.js';
import { driftPolicy } from './kinds/deployment-decisions.js';

/** A reference dependents cannot use this pass, and why. */
export function blockedRef(reason: string): RefState {
  return { ref: null, readyAfter: null, blockedBy: reason, isNew: false };
}

/**
 * A reference to an object this pass leaves as it is: dependents use its live object when there
 * is one, and are blocked (`reason`) when there is none.
 */
export function asItIs(liveId: string | undefined, reason: string): RefState {
  return liveId !== undefined ? { ref: { id: liveId }, readyAfter: null, blockedBy: null, isNew: false } : blockedRef(reason);
}

/** Where dependents find a kind's planned objects (packages and flows have dependents). */
export interface Dependents {
  refs: Map<string, RefState>;
  /** The kind's live objects by id. */
  live: ReadonlyMap<string, unknown>;
}

/**
 * `spec.suspend`, for every kind: skipped, nothing planned; dependents keep using the live object
 * the state owns as it is, and are blocked when there is none.
 */
export function planSuspended(ctx: PlanContext, m: Manifest, dependents?: Dependents): void {
  const key = `${m.kind}/${m.metadata.name}`;
  ctx.object(m.kind, m.metadata.name, 'skipped', { source: m.source, reasons: ['suspended'] }, key).suspended = true;
  if (!dependents) return;
  const id = ctx.entry(key)?.id;
  dependents.refs.set(m.metadata.name, asItIs(id !== undefined && dependents.live.has(id) ? id : undefined, `${key} is suspended`));
}

/**
 * A name that does not resolve live fails its object at the field's position and blocks its
 * dependents; anything but a `ResolveError` is a bug and propagates.
 */
export function planResolveError(ctx: PlanContext, m: Manifest, key: string, e: unknown, refs?: Map<string, RefState>): void {
  if (!(e instanceof ResolveError)) throw e;
  ctx.object(m.kind, m.metadata.name, 'error', { source: positionOf(m, e.field), error: { code: e.code, message: e.message } }, key);
  refs?.set(m.metadata.name, blockedRef(`${key} has an error`));
}

/**
 * An owned flow or deployment deleted outside packsync while drift is only reported (`run`'s
 * default): report, never act (docs/manifests.md), so one someone deleted in the console stays deleted.
 * Returns false when drift is healed (the caller creates it again).
 */
export function reportDeleted(ctx: PlanContext, m: Manifest, key: string, id: string): boolean {
  const policy = driftPolicy(ctx.options, key);
  if (policy.heal) return false;
  const kind = m.kind.toLowerCase();
  const why = `live ${kind} ${id} not found (deleted outside packsync; drift: ${policy.label}): not made again; --drift heal or apply makes it`;
  ctx.object(m.kind, m.metadata.name, 'drift', { source: m.source, reasons: [why] }, key).drift = policy.held ? 'held' : 'reported';
  return true;
}
