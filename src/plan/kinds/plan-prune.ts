/**
 * Owned objects that left git, and superseded ones (docs/reconcile.md). Prune is opt-in: without --prune
 * they are listed. Only inventory-owned objects under the applied path are ever deleted (applying
 * one file prunes at most what came from that file), deployments before their flows; objects the
 * API cannot delete (packages, tenant uploads) are forgotten instead.
 */
import { clearLeftGit, markLeftGit } from '../left-git.js';
import { flowsMadeBy } from '../ownership.js';
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { PlanContext } from '../context.js';
import { OP } from '../ops.js';

export const PRUNE_ANNOTATION = 'packsync.dev/prune';

/** A gone deployment: deleted (its flow's delete waits for it, by flow id in `deletes`), or forgotten when already gone live. */
function pruneDeployment(ctx: PlanContext, key: string, e: InventoryEntry, deletes: Map<string, string[]>): void {
  const live = ctx.deploymentsById.get(e.id);
  if (!live) {
    const id = ctx.action(key, { op: OP.forget, dependsOn: [], description: 'forget (already gone live)' });
    ctx.object(e.kind, e.name, 'forget', { reasons: ['already deleted live'], actions: [id] });
    return;
  }
  const id = ctx.action(key, { op: OP.deleteDeployment, dependsOn: [], description: `delete deployment ${e.id}`, deploymentId: e.id });
  // What the delete ends, as replacement lines say it (operator review: a bare key in the prompt).
  const why = e.superseded ? 'superseded by a newer version' : 'its manifest left git';
  ctx.object(e.kind, e.name, 'delete', {
    reasons: [`live: ${live.status}, wave ${live.currentWave}/${live.waveCount}; ${why}`],
    actions: [id],
  });
  const list = deletes.get(live.flowId) ?? [];
  list.push(id);
  deletes.set(live.flowId, list);
}

/** A gone flow: deleted after its deployments' deletes (`after`), or forgotten when already gone live. */
function pruneFlow(ctx: PlanContext, key: string, e: InventoryEntry, after: string[]): void {
  if (!ctx.flowsById.has(e.id)) {
    const id = ctx.action(key, { op: OP.forget, dependsOn: [], description: 'forget (already gone live)' });
    ctx.object(e.kind, e.name, 'forget', { reasons: ['already deleted live'], actions: [id] });
    return;
  }
  // A replacement of it interrupted before its create left a copy recording it: it goes with the flow.
  const copies = ctx
    .superseded(key)
    .filter(([, c]) => c.id === e.id && c.replacing !== undefined)
    .map(([k]) => ({ key: k, id: e.id }));
  const id = ctx.action(key, {
    op: OP.deleteFlow,
    dependsOn: after,
    description: `delete flow ${e.id}`,
    flowId: e.id,
    ...(copies.length > 0 ? { forget: copies } : {}),
  });
  ctx.object(e.kind, e.name, 'delete', { actions: [id] });
}

export function planPrune(ctx: PlanContext, isDesired: (key: string) => boolean): void {
  const gone: [string, InventoryEntry][] = [];
  const back: string[] = [];
  // forEach, not for-of: no [key, entry] pair per entry (20,000 of them at fleet scale).
  ctx.allEntries().forEach((e, key) => {
    if (e.leftGit && isDesired(key)) back.push(key);
    const left =
      !isDesired(key) &&
      !ctx.moves.has(key) &&
      !ctx.replaced.has(key) &&
      // A revert restores it as its main key this pass: it is not left over, and never deleted.
      !ctx.reused.has(key) &&
      !replacing(e, key, isDesired) &&
      ctx.inScope(e) &&
      !staleCopy(ctx, key, e);
    if (left) gone.push([key, e]);
  });
  clearLeftGit(ctx, back);
  gone.sort(([a], [b]) => (a < b ? -1 : 1));
  if (gone.length === 0) return;
  const deploymentDeletes = new Map<string, string[]>();
  const deletesLater: [string, InventoryEntry][] = [];
  // Live ids a delete is planned for: a live object recorded under two gone keys is deleted once.
  const deleting = new Map<string, string>();
  for (const [key, e] of gone) {
    const keeper = keeperOf(ctx, key, e.id);
    if (!ctx.options.prune) {
      const o = ctx.object(e.kind, e.name, 'orphan', { reasons: [keeper ? sharedReason(e, key, keeper, 'orphan') : orphanReason(ctx, e)] });
      if (keeper === undefined && requiresPruning(ctx, e)) o.requiresPruning = true;
      markLeftGit(ctx, key, o);
      continue;
    }
    if (e.file !== undefined && ctx.scope?.leftOut?.has(e.file)) {
      // Its file is still there but was not read: a prune would delete what git still describes.
      const why = `its manifest file ${e.file} still exists but was not read (ignored, hidden or inside a content folder); --prune never deletes it: read the file again, or \`packsync state rm ${key}\``;
      const o = ctx.object(e.kind, e.name, 'orphan', { reasons: [why] });
      if (requiresPruning(ctx, e)) o.requiresPruning = true;
      continue;
    }
    if (e.annotations?.[PRUNE_ANNOTATION] === 'disabled') {
      const id = ctx.action(key, { op: OP.forget, dependsOn: [], description: 'forget (prune disabled by annotation)' });
      ctx.object(e.kind, e.name, 'forget', { reasons: [`${PRUNE_ANNOTATION}: disabled; stop managing without deleting`], actions: [id] });
      continue;
    }
    // One live object belongs to one key (docs/reconcile.md): never delete what another key still owns.
    const deletedBy = deleting.get(e.id);
    if (keeper !== undefined || deletedBy !== undefined) {
      const id = ctx.action(key, { op: OP.forget, dependsOn: [], description: `forget ${key} (state only, nothing is deleted)` });
      const reason = keeper
        ? sharedReason(e, key, keeper, 'forget')
        : `${e.kind.toLowerCase()} ${e.id} is deleted once, as ${deletedBy ?? ''}; ${key} is forgotten`;
      ctx.object(e.kind, e.name, 'forget', { reasons: [reason], actions: [id] });
      continue;
    }
    if (e.kind === 'Deployment' || e.kind === 'Flow') deleting.set(e.id, key);
    if (e.kind === 'Deployment') {
      pruneDeployment(ctx, key, e, deploymentDeletes);
    } else if (e.kind === 'Flow') {
      deletesLater.push([key, e]);
    } else {
      const id = ctx.action(key, { op: OP.forget, dependsOn: [], description: 'forget (the API cannot delete this kind)' });
      ctx.object(e.kind, e.name, 'forget', {
        reasons: ['the API cannot delete packages or tenant uploads; packsync stops managing it'],
        actions: [id],
      });
    }
  }
  for (const [key, e] of deletesLater) pruneFlow(ctx, key, e, deploymentDeletes.get(e.id) ?? []);
  for (const [key, e] of gone) if (e.kind === 'Flow' && !key.includes('#')) pruneInterruptedCreate(ctx, key, e);
}

/**
 * The flow an interrupted create of `key` made (its pending intent finds it: a live flow of the
 * name that no key records and that was not there before the create), when the key left git: no
 * state entry names it, so without this it would stay live and unmentioned. Deleted with --prune,
 * else listed; the intent goes with the key's own delete or forget.
 */
function pruneInterruptedCreate(ctx: PlanContext, key: string, e: InventoryEntry): void {
  for (const f of flowsMadeBy(ctx, ctx.intent(key))) {
    const why = `made by an interrupted create of ${key}, which left git`;
    if (!ctx.options.prune) {
      ctx.object('Flow', `${e.name}#${f.id}`, 'orphan', { reasons: [`${why}; apply with --prune to delete it`] });
      continue;
    }
    const id = ctx.action(`${key}#${f.id}`, {
      op: OP.deleteFlow,
      dependsOn: [],
      description: `delete flow ${f.id} (${why})`,
      flowId: f.id,
    });
    ctx.object('Flow', `${e.name}#${f.id}`, 'delete', { reasons: [why], actions: [id] });
  }
}

/**
 * Another main key recording live id `id` that prune must leave it to: one git still describes,
 * one that moves to such a key this pass, or one outside the applied path (whether git describes
 * it is not known here). A state written before packsync refused two keys on one id has these.
 */
function keeperOf(ctx: PlanContext, key: string, id: string): string | undefined {
  const others = ctx.holdersOf(id).filter((k) => k !== key && !k.includes('#'));
  if (others.length === 0) return undefined;
  const keeps = (k: string): boolean => {
    const e = ctx.entry(k);
    return ctx.isDesired(k) || ctx.moves.has(k) || (e !== undefined && !ctx.inScope(e));
  };
  return others.find((k) => ctx.isDesired(k)) ?? others.find(keeps);
}

function sharedReason(e: InventoryEntry, key: string, keeper: string, change: 'orphan' | 'forget'): string {
  const what = `live ${e.kind.toLowerCase()} ${e.id} is also recorded under ${keeper}, which packsync must leave it to (one live object belongs to one key)`;
  return change === 'forget'
    ? `${what}: ${key} is forgotten (state only), nothing is deleted`
    : `${what}: --prune forgets ${key} and deletes nothing (or forget it now with \`packsync state rm ${key}\`)`;
}

/** A superseded copy of an id its main key still owns (a crash between keeping it and the create). */
function staleCopy(ctx: PlanContext, key: string, e: InventoryEntry): boolean {
  return (e.superseded !== undefined || e.replacing !== undefined) && ctx.ownerOf(e.id) !== undefined && ctx.ownerOf(e.id) !== key;
}

/**
 * A flow being replaced whose manifest is still in git: the replacement is that flow's plan to
 * finish (flow-replacement.ts), never prune's to delete, even when the flow is not planned this
 * pass (suspended, or its package blocked): deleting it would take deployments not yet moved.
 */
function replacing(e: InventoryEntry, key: string, isDesired: (key: string) => boolean): boolean {
  const hash = key.indexOf('#');
  return e.replacing !== undefined && hash > 0 && isDesired(key.slice(0, hash));
}

/**
 * An owned object whose manifest left git and that still exists live: out of sync until pruned
 * (Argo CD's "requires pruning"). Superseded copies are kept on purpose (a revert reuses them).
 */
function requiresPruning(ctx: PlanContext, e: InventoryEntry): boolean {
  if (e.superseded !== undefined || e.replacing !== undefined) return false;
  if (e.kind === 'Deployment') return ctx.deploymentsById.has(e.id);
  if (e.kind === 'Flow') return ctx.flowsById.has(e.id);
  return true;
}

function orphanReason(ctx: PlanContext, e: InventoryEntry): string {
  const deletable = e.kind === 'Deployment' || e.kind === 'Flow';
  const prune = deletable ? 'apply with --prune to delete it' : 'the API cannot delete it; --prune forgets it';
  const liveDep = e.kind === 'Deployment' ? ctx.deploymentsById.get(e.id) : undefined;
  const where = liveDep ? ` (live: ${liveDep.status}, wave ${liveDep.currentWave}/${liveDep.waveCount})` : '';
  if (e.superseded) return `superseded by a newer version${where}; kept while it exists live so a revert reuses it; ${prune}`;
  return `owned by packsync but no longer in git${where}; ${prune}`;
}
