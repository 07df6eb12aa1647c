/**
 * Annotations of an object packsync already owns, kept current in its state entry (docs/reconcile.md,
 * "Prune"). Prune reads `packsync.dev/prune: disabled` from the state, since the manifest is gone by
 * then: an annotation added to an existing object must reach the state at once, not only when the
 * object is next created (regression: a protected deployment was deleted by `--prune`). No API call.
 */
import type { Manifest } from '../manifests/model.js';
import type { PlanContext } from './context.js';
import { OP } from './ops.js';
import { FAILING_CHANGES } from './gates/verdict.js';
import type { ObjectPlan } from './types.js';

/** After `m` was planned (its objects from index `from` of `ctx.objects` on): records changed annotations. */
export function recordAnnotations(ctx: PlanContext, m: Manifest, from: number): void {
  const key = `${m.kind}/${m.metadata.name}`;
  const entry = ctx.entry(key);
  const want = m.metadata.annotations;
  if (!entry || sameAnnotations(entry.annotations, want)) return;
  const o = objectOf(ctx, key, from);
  if (!o || FAILING_CHANGES.has(o.change)) return;
  const id = ctx.action(key, {
    op: OP.gate,
    dependsOn: o.actions.slice(-1),
    description: 'record the annotations in the state (no API call)',
    set: { annotations: want && Object.keys(want).length > 0 ? want : null },
    quiet: false,
  });
  o.actions.push(id);
  o.fields.push({ field: 'metadata.annotations', from: entry.annotations ?? {}, to: want ?? {} });
  o.reasons.push('annotations changed: recorded in the state (no API call)');
  if (o.change === 'none') o.change = 'update';
}

function objectOf(ctx: PlanContext, key: string, from: number): ObjectPlan | undefined {
  for (let i = ctx.objects.length - 1; i >= from; i--) if (ctx.objects[i]!.key === key) return ctx.objects[i];
  return undefined;
}

function sameAnnotations(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === undefined && b === undefined) return true;
  const x = Object.entries(a ?? {}).sort(([p], [q]) => (p < q ? -1 : 1));
  const y = Object.entries(b ?? {}).sort(([p], [q]) => (p < q ? -1 : 1));
  return x.length === y.length && x.every(([k, v], i) => y[i]![0] === k && y[i]![1] === v);
}
