/**
 * Owned objects that left git. Prune is opt-in: without --prune they are reported as orphans.
 * Only inventory-owned objects are ever deleted, deployments before their flows; objects the API
 * cannot delete (packages, tenant uploads) are forgotten instead.
 */
import type { InventoryEntry } from '../apply/inventory-types.js';
import type { PlanContext } from './context.js';

export const PRUNE_ANNOTATION = 'packsync.dev/prune';

export function planPrune(ctx: PlanContext, isDesired: (key: string) => boolean): void {
  const gone = Object.entries(ctx.inventory.objects)
    .filter(([key]) => !isDesired(key))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (gone.length === 0) return;
  const deploymentDeletes = new Map<string, string[]>();
  const deletesLater: [string, InventoryEntry][] = [];
  for (const [key, e] of gone) {
    if (!ctx.options.prune) {
      ctx.object(e.kind, e.name, 'orphan', { reasons: ['owned by packsync but no longer in git (apply with --prune to delete)'] });
      continue;
    }
    if (e.annotations?.[PRUNE_ANNOTATION] === 'disabled') {
      const id = ctx.action(key, { op: 'forget', dependsOn: [], description: 'forget (prune disabled by annotation)' });
      ctx.object(e.kind, e.name, 'forget', { reasons: [`${PRUNE_ANNOTATION}: disabled; stop managing without deleting`], actions: [id] });
      continue;
    }
    if (e.kind === 'Deployment') {
      const live = ctx.deploymentsById.get(e.id);
      if (!live) {
        const id = ctx.action(key, { op: 'forget', dependsOn: [], description: 'forget (already gone live)' });
        ctx.object(e.kind, e.name, 'forget', { reasons: ['already deleted live'], actions: [id] });
        continue;
      }
      const id = ctx.action(key, { op: 'delete-deployment', dependsOn: [], description: `delete deployment ${e.id}`, deploymentId: e.id });
      ctx.object(e.kind, e.name, 'delete', { actions: [id] });
      const list = deploymentDeletes.get(live.flowId) ?? [];
      list.push(id);
      deploymentDeletes.set(live.flowId, list);
    } else if (e.kind === 'Flow') {
      deletesLater.push([key, e]);
    } else {
      const id = ctx.action(key, { op: 'forget', dependsOn: [], description: 'forget (the API cannot delete this kind)' });
      ctx.object(e.kind, e.name, 'forget', { reasons: ['the API cannot delete packages or tenant uploads; packsync stops managing it'], actions: [id] });
    }
  }
  for (const [key, e] of deletesLater) {
    if (!ctx.flowsById.has(e.id)) {
      const id = ctx.action(key, { op: 'forget', dependsOn: [], description: 'forget (already gone live)' });
      ctx.object(e.kind, e.name, 'forget', { reasons: ['already deleted live'], actions: [id] });
      continue;
    }
    const id = ctx.action(key, {
      op: 'delete-flow',
      dependsOn: deploymentDeletes.get(e.id) ?? [],
      description: `delete flow ${e.id}`,
      flowId: e.id,
    });
    ctx.object(e.kind, e.name, 'delete', { actions: [id] });
  }
}
