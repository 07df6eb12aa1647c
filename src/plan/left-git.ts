/**
 * `leftGit` on a state entry (state/inventory-types.ts): when an owned object's manifest left git
 * and an apply kept the object. A Baseline's blast guard (plan/baselines.ts) counts a removal in the
 * change that made it, not again in every later plan while the object waits to be pruned. Written
 * by quiet gate actions: bookkeeping, not a change of the plan.
 */
import type { PlanContext } from './context.js';
import { OP } from './ops.js';
import type { ObjectPlan } from './types.js';

/** An orphan the state does not yet know as one: the apply of this plan records when it left git. */
export function markLeftGit(ctx: PlanContext, key: string, o: ObjectPlan): void {
  if (ctx.entry(key)?.leftGit) return;
  const id = ctx.action(key, {
    op: OP.gate,
    dependsOn: [],
    description: 'record that the manifest left git (no API call)',
    set: { leftGit: { at: ctx.timestamp() } },
    quiet: true,
  });
  o.actions.push(id);
}

/** Keys git describes again whose entries still say they left: the mark goes. */
export function clearLeftGit(ctx: PlanContext, keys: readonly string[]): void {
  if (keys.length === 0) return;
  const wanted = new Set(keys);
  for (let i = ctx.objects.length - 1; i >= 0 && wanted.size > 0; i--) {
    const o = ctx.objects[i]!;
    if (!wanted.delete(o.key)) continue;
    const id = ctx.action(o.key, {
      op: OP.gate,
      dependsOn: o.actions.slice(-1),
      description: 'record that git describes it again (no API call)',
      set: { leftGit: null },
      quiet: true,
    });
    o.actions.push(id);
  }
}
