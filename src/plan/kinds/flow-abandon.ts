/**
 * A flow replacement git abandoned (docs/reconcile.md): git describes the old flow again after an
 * interrupted replacement made the new one. The old flow is kept with its deployments, and the
 * flow packsync made is deleted once, whether the interruption came during its create (found by
 * the create's intent) or after it (recorded under the main key, deployments maybe added to it).
 */
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { FlowManifest } from '../../manifests/model.js';
import type { LiveFlow } from '../../live/types.js';
import type { PlanContext } from '../context.js';
import { OP } from '../ops.js';
import { forgetReplaced, wouldDestroy } from './flow-replacement.js';
import type { OldFlow, PendingReplacement } from './flow-replacement.js';

/**
 * Git describes the old flow again while the create of its replacement was interrupted (the
 * intent found the half-made new flow): the old flow and its deployments are kept, the new flow
 * packsync made is deleted once, and the replacement's records go (the intent with the delete).
 */
/** The flow git describes: its manifest, state key and the entry that key records. */
export interface FlowSubject {
  m: FlowManifest;
  key: string;
  entry: InventoryEntry;
}

export function abandonReplacement(ctx: PlanContext, { m, key, entry }: FlowSubject, made: LiveFlow, olds: readonly OldFlow[]): void {
  const halfKey = `${key}#${made.id}`;
  const del = ctx.action(halfKey, {
    op: OP.deleteFlow,
    dependsOn: [],
    description: `delete flow ${made.id}, made by an interrupted replacement git no longer wants`,
    flowId: made.id,
  });
  const resolve = ctx.action(key, {
    op: OP.record,
    dependsOn: [del],
    description: `keep ${key} (${entry.id}) and resolve the interrupted create`,
    entry,
    resolvesIntent: true,
  });
  const o = ctx.object(
    'Flow',
    `${m.metadata.name}#${made.id}`,
    'delete',
    {
      source: m.source,
      reasons: [
        `git describes the flow ${entry.id} again: the replacement an earlier apply began is abandoned, the flow it made (${made.id}) is deleted and ${entry.id} is kept with its deployments`,
      ],
      actions: [del, resolve],
    },
    halfKey,
  );
  const destroys = wouldDestroy(ctx, [made.id]);
  if (destroys.length > 0) o.destroys = destroys;
  forgetReplaced(ctx, olds, 'the replacement it recorded was abandoned');
  ctx.object('Flow', m.metadata.name, 'none', { source: m.source }, key);
  ctx.flowRefs.set(m.metadata.name, { ref: { id: entry.id }, readyAfter: null, blockedBy: null, isNew: false });
}

/**
 * Git describes the old flow again after an interrupted replacement made the new flow (and maybe
 * added deployments to it): the old flow goes back to the main key with its deployments, and the
 * new flow packsync made is deleted once, after the deployments are taken back (they push their
 * records into the flow's `replaces`). The new flow is first recorded apart, so a crash never
 * leaves it live in no entry. Returns false when this is not such a revert.
 */
export function abandonMadeFlow(
  ctx: PlanContext,
  { m, key, entry }: FlowSubject,
  made: LiveFlow,
  specHash: string,
  pending: PendingReplacement,
): boolean {
  const [old, ...others] = pending.live;
  if (!old || others.length > 0 || old.entry.specHash !== specHash || entry.specHash === specHash) return false;
  const halfKey = `${key}#${made.id}`;
  const { replacing: _r, superseded: _s, ...kept } = old.entry;
  const name = key.slice('Flow/'.length);
  const madeEntry: InventoryEntry = { ...entry, name: `${name}#${made.id}` };
  const apart = ctx.action(halfKey, {
    op: OP.record,
    dependsOn: [],
    description: `record flow ${made.id}, made by an interrupted replacement, apart from ${key}`,
    entry: { ...madeEntry, replacing: { at: ctx.timestamp(), abandoned: true } },
    resolvesIntent: false,
  });
  const restore = ctx.action(key, {
    op: OP.record,
    dependsOn: [apart],
    description: `keep ${key} (${kept.id}) as git describes it`,
    entry: { ...kept, name, updatedAt: ctx.timestamp() },
    resolvesIntent: false,
  });
  const forget = ctx.action(old.key, { op: OP.forget, dependsOn: [restore], description: `forget ${old.key} (the flow is ${key} again)` });
  const after = [forget];
  deleteAbandoned(ctx, m, [{ key: halfKey, entry: madeEntry }], kept.id, {
    after,
    first: [apart, restore, forget],
    why: `git describes the flow ${kept.id} again: the replacement an earlier apply began is abandoned, ${kept.id} is kept with its deployments and the flow it made (${made.id}) is deleted`,
  });
  ctx.object('Flow', m.metadata.name, 'none', { source: m.source }, key);
  ctx.flowRefs.set(m.metadata.name, { ref: { id: kept.id }, readyAfter: forget, blockedBy: null, isNew: false, replaces: after });
  return true;
}

/**
 * Deletes flows made by an abandoned replacement, once the deployments on them are taken back to
 * the kept flow (`after`, which their records join). `first` are state writes shown with it.
 */
export function deleteAbandoned(
  ctx: PlanContext,
  m: FlowManifest,
  made: readonly OldFlow[],
  kept: string,
  o: { after?: string[]; first?: string[]; why?: string } = {},
): void {
  const { after = [], first = [] } = o;
  const why = o.why ?? `the flow was made by a replacement git abandoned; ${kept} is kept with its deployments`;
  for (const flow of made) {
    const gone = ctx.deploymentEntriesOn(flow.entry.id);
    for (const g of gone) ctx.replaced.add(g.key);
    ctx.abandoned.set(flow.entry.id, { kept, after });
    const del = ctx.action(flow.key, {
      op: OP.deleteFlow,
      dependsOn: after,
      description: `delete flow ${flow.entry.id}, made by an interrupted replacement git no longer wants`,
      flowId: flow.entry.id,
      ...(gone.length > 0 ? { forget: gone.slice() } : {}),
    });
    const planned = ctx.object('Flow', flow.entry.name, 'delete', { source: m.source, reasons: [why], actions: [...first, del] }, flow.key);
    const destroys = wouldDestroy(ctx, [flow.entry.id]);
    if (destroys.length > 0) planned.destroys = destroys;
  }
}
