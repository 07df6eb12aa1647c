/**
 * A flow replacement (docs/reconcile.md) as state the plan can pick up again: the old flow is recorded as
 * `Flow/name#id` with `replacing` before the new flow's create, and stays so until its delete lands.
 * Any later plan of the flow sees the replacement in progress and finishes it (the deployments
 * added to the new flow, then the old flow deleted, each exactly once), or, without
 * --allow-replace, says it needs it and holds the flow's deployments back, so that they are never
 * added to the new flow while the old one is kept.
 */
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { FlowManifest } from '../../manifests/model.js';
import type { LiveFlow } from '../../live/types.js';
import { idOf } from '../context.js';
import type { PlanContext, RefState } from '../context.js';
import { blockedRef } from '../not-planned.js';
import { OP } from '../ops.js';
import { holdReplacement } from '../windows/window-gate.js';
import type { ObjectPlan } from '../types.js';

type Destroyed = NonNullable<ObjectPlan['destroys']>[number];

export interface OldFlow {
  /** The state key (`Flow/name#id`) that records it. */
  key: string;
  entry: InventoryEntry;
}

export interface PendingReplacement {
  /** Flows an abandoned replacement made, recorded apart, whose delete did not land (a crash): deleted now. */
  abandoned: OldFlow[];
  /** Old flows still live: deleted once the deployments are on the new flow. */
  live: OldFlow[];
  /** Old flows already gone live (a crash after their delete): only their state entries are left. */
  gone: OldFlow[];
  /** Copies of the flow the main key owns now: a replacement stopped before its create (kept or redone). */
  stale: OldFlow[];
}

/** The replacements of `key` in progress, told apart by the live flow the main key owns after this pass (`current`). */
export function pendingReplacement(ctx: PlanContext, key: string, current: string | undefined): PendingReplacement {
  const out: PendingReplacement = { abandoned: [], live: [], gone: [], stale: [] };
  for (const [k, entry] of ctx.superseded(key)) {
    if (entry.replacing === undefined) continue;
    const old = { key: k, entry };
    if (entry.replacing.abandoned && ctx.flowsById.has(entry.id) && entry.id !== current) out.abandoned.push(old);
    else if (entry.id === current) out.stale.push(old);
    else if (ctx.flowsById.has(entry.id)) out.live.push(old);
    else out.gone.push(old);
    // Planned here, whatever happens to it: prune leaves it alone.
    ctx.replaced.add(k);
  }
  return out;
}

/**
 * The state entry of the flow being replaced, written before the new flow's create: from then on
 * every plan knows a replacement is in progress. A crash before the create leaves a copy of the id
 * the main key still owns (a stale copy: redone or dropped by the next plan).
 */
export function replacingAction(ctx: PlanContext, key: string, entry: InventoryEntry): string {
  const name = `${entry.name.split('#')[0] ?? entry.name}#${entry.id}`;
  const { superseded: _s, ...rest } = entry;
  return ctx.action(`Flow/${name}`, {
    op: OP.record,
    dependsOn: [],
    description: `record the replacement of ${key} (${entry.id}) in the state`,
    entry: { ...rest, name, replacing: { at: ctx.timestamp() } },
    resolvesIntent: false,
  });
}

/**
 * The deletes of old flows, after `after` (the new flow's create, then every add-deployment the
 * flow's dependents push into it). Each forgets the deployment entries its delete destroys.
 * Returns the action ids and the deployments destroyed.
 */
export function deleteOldFlows(
  ctx: PlanContext,
  olds: readonly { key: string; id: string }[],
  after: string[],
): { actions: string[]; destroys: Destroyed[] } {
  const actions: string[] = [];
  const destroys: Destroyed[] = [];
  for (const old of olds) {
    const forget = ctx.deploymentEntriesOn(old.id);
    for (const f of forget) ctx.replaced.add(f.key);
    actions.push(
      ctx.action(old.key, {
        op: OP.deleteFlow,
        dependsOn: after,
        description: `delete the replaced flow ${old.id}`,
        flowId: old.id,
        ...(forget.length > 0 ? { forget: forget.slice() } : {}),
      }),
    );
    destroys.push(...destroyedOn(ctx, old.id));
  }
  return { actions, destroys };
}

/** Live deployments on a flow, named by the state key that owns them (superseded ones too). */
function destroyedOn(ctx: PlanContext, flowId: string): Destroyed[] {
  return ctx.live.deployments
    .filter((d) => d.flowId === flowId)
    .map((d) => ({
      key: ctx.stateKeyOf(d.id) ?? `(unmanaged deployment ${d.id})`,
      id: d.id,
      status: d.status,
      wave: `${d.currentWave}/${d.waveCount}`,
    }));
}

/** Live deployments a replacement of `flowId` would destroy (for the plan of a replacement not allowed). */
export function wouldDestroy(ctx: PlanContext, flowIds: readonly string[]): Destroyed[] {
  return flowIds.flatMap((id) => destroyedOn(ctx, id));
}

/**
 * Finishes an interrupted replacement on the object planned for the flow: its new flow is `ref`
 * (recorded, adopted from the interrupted create, or created now); the old flows are deleted after
 * the deployments are added to it. Dependents push their adds into `ref.replaces`.
 */
export function finishReplacement(ctx: PlanContext, o: ObjectPlan, ref: RefState, olds: readonly OldFlow[]): void {
  if (olds.length === 0) return;
  // Only deployments not yet live on the new flow still need their add (an earlier apply may have made them).
  const held = holdReplacement(ctx, o.key, o.name, ref.isNew ? undefined : idOf(ref.ref));
  if (held !== undefined) {
    // The deployments' adds wait for the window (their plans say so); the old flow keeps its rollouts until then.
    if (o.actions.length === 0) o.change = 'waiting';
    o.reasons.push(
      `finishing the replacement an earlier apply began waits: ${held}; the old flow ${olds.map((x) => x.entry.id).join(', ')} keeps its rollouts until the deployments are added to the new flow`,
    );
    return;
  }
  const after = (ref.replaces ??= ref.readyAfter ? [ref.readyAfter] : []);
  const { actions, destroys } = deleteOldFlows(
    ctx,
    olds.map((x) => ({ key: x.key, id: x.entry.id })),
    after,
  );
  o.change = 'replace';
  o.actions.push(...actions);
  o.destroys = [...(o.destroys ?? []), ...destroys];
  o.reasons.push(
    `finishing the replacement an earlier apply began: the deployments are added to the new flow, then the old flow ${olds.map((x) => x.entry.id).join(', ')} is deleted`,
  );
}

/**
 * A replacement in progress without --allow-replace: shown as requiring it, nothing written, and
 * the flow's deployments held back (adding them to the new flow would keep both flows for good).
 */
export function blockReplacement(
  ctx: PlanContext,
  { m, key }: { m: FlowManifest; key: string },
  olds: readonly OldFlow[],
  current: LiveFlow | undefined,
  changedAgain = false,
): void {
  const ids = olds.map((x) => x.entry.id).join(', ');
  // Git moved on again since: --allow-replace makes a third flow and deletes both, so say that.
  const then =
    changedAgain && current
      ? `git changed the flow again since: apply with --allow-replace to replace it again (a new flow is created and the deployments added to it, then flows ${current.id} and ${ids} are deleted)`
      : 'apply with --allow-replace to finish it (the deployments are added to the new flow, then the old flow is deleted)';
  const o = ctx.object(
    'Flow',
    m.metadata.name,
    'requires-replacement',
    {
      source: m.source,
      reasons: [
        `a replacement of this flow was interrupted: ${current ? `the new flow ${current.id} is live and ` : ''}the old flow ${ids} is still live; ${then}`,
      ],
    },
    key,
  );
  const destroys = wouldDestroy(ctx, [...(changedAgain && current ? [current.id] : []), ...olds.map((x) => x.entry.id)]);
  if (destroys.length > 0) o.destroys = destroys;
  ctx.flowRefs.set(m.metadata.name, blockedRef(`${key} has a replacement in progress (apply with --allow-replace to finish it)`));
}

/**
 * State entries of a replacement that already ended live (a crash after the old flow's delete, or
 * a copy no longer needed): forgotten, no API call. Deployment entries on a deleted flow go too.
 */
export function forgetReplaced(ctx: PlanContext, olds: readonly OldFlow[], why: string): void {
  for (const old of olds) {
    const actions = [ctx.action(old.key, { op: OP.forget, dependsOn: [], description: `forget ${old.key} (${why})` })];
    if (!ctx.flowsById.has(old.entry.id)) {
      for (const d of ctx.deploymentEntriesOn(old.entry.id)) {
        // Main keys are their manifests' to plan (added again); superseded copies only lived on this flow.
        if (!d.key.includes('#') || ctx.replaced.has(d.key)) continue;
        ctx.replaced.add(d.key);
        actions.push(
          ctx.action(d.key, { op: OP.forget, dependsOn: [], description: `forget ${d.key} (deleted with flow ${old.entry.id})` }),
        );
      }
    }
    ctx.object('Flow', old.entry.name, 'forget', { reasons: [why], actions }, old.key);
  }
}
