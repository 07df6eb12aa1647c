/**
 * `--target Kind/NAME` (docs/reconcile.md, "Targeting"), as Terraform's `-target`: the plan keeps the
 * targeted objects and what their actions depend on (a deployment's flow and package when those
 * change too), and leaves every other change for a later plan. A key is matched exactly, so
 * `--target Deployment/vlc-current#093492a4-…` prunes that one superseded rollout and
 * `--target Deployment/vlc-current` never touches the superseded ones. Prune keeps its scope: a
 * target only narrows it.
 */
import type { ObjectPlan, Plan, PlanAction } from './types.js';

const TARGET = /^(Package|Flow|Deployment|TenantUpload)\/[^\s/#][^\s#]*(#[0-9A-Fa-f-]{1,64})?$/;

/** Why a `--target` value is not a key, or null when it is one. */
export function targetProblem(value: string): string | null {
  return TARGET.test(value)
    ? null
    : `--target "${value}" is not an object key: give Kind/NAME (Package, Flow, Deployment or TenantUpload), or Kind/NAME#ID for one superseded object`;
}

/** The plan narrowed to the targets and their dependencies; a target that matches nothing is an error of the plan. */
export function targeted(plan: Plan, targets: readonly string[], summarize: (objects: readonly ObjectPlan[]) => Plan['summary']): Plan {
  const byKey = new Map(plan.objects.map((o) => [o.key.toLowerCase(), o]));
  const errors: string[] = [];
  const keep = new Set<string>();
  for (const t of targets) {
    const o = byKey.get(t.toLowerCase());
    if (o) keep.add(o.key);
    else errors.push(`--target ${t} matches no object of this plan${nearest(t, plan.objects)}`);
  }
  const actions = new Map(plan.actions.map((a) => [a.id, a]));
  const kept = new Set<string>();
  const visit = (a: PlanAction): void => {
    if (kept.has(a.id)) return;
    kept.add(a.id);
    keep.add(a.key);
    for (const d of a.dependsOn) {
      const dep = actions.get(d);
      if (dep) visit(dep);
    }
  };
  for (const o of plan.objects) if (keep.has(o.key)) for (const id of o.actions) if (actions.has(id)) visit(actions.get(id)!);
  const objects = plan.objects.filter((o) => keep.has(o.key));
  return {
    ...plan,
    objects,
    actions: plan.actions.filter((a) => kept.has(a.id)),
    summary: { ...summarize(objects) },
    errors: [...plan.errors, ...errors],
    targets: [...targets],
    ...(plan.gates ? { gates: plan.gates.filter((g) => keep.has(g.key)) } : {}),
    ...(plan.windows ? { windows: plan.windows.filter((w) => keep.has(w.key)) } : {}),
  };
}

function nearest(t: string, objects: readonly ObjectPlan[]): string {
  const [kind = '', ...rest] = t.toLowerCase().split('/');
  const name = rest.join('/').split('#')[0]!;
  const sameKind = objects.filter((o) => o.kind.toLowerCase() === kind);
  const hit =
    sameKind.find((o) => o.name.toLowerCase().startsWith(name)) ??
    sameKind.find((o) => o.name.toLowerCase().includes(name)) ??
    objects.find((o) => o.name.toLowerCase() === name);
  return hit ? ` (did you mean ${hit.key}?)` : '';
}
