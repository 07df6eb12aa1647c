/**
 * `plan(desired, live, inventory, options, now)`: pure. Data in, a versioned plan out; the clock is
 * an argument. An error in one object blocks only the objects that depend on it.
 */
import { planLeftoverIntents } from './kinds/leftover-intents.js';
import type { Inventory } from '../state/inventory-types.js';
import type { LiveState } from '../live/types.js';
import type { DeploymentManifest, DesiredModel, Kind, Manifest, ObjectKind } from '../manifests/model.js';
import { OBJECT_KINDS } from '../manifests/model.js';
import { OBJECT_KIND_SPECS, OBJECT_KINDS_IN_ORDER } from '../manifests/kinds/index.js';
import { PlanContext } from './context.js';
import { StateIndex } from './state-index.js';
import { KIND_PLANNERS } from './kinds/index.js';
import type { KindPlanner, ManifestOf } from './kinds/index.js';
import { planPrune } from './kinds/plan-prune.js';
import { identityHashesInTurns } from './kinds/plan-deployments.js';
import { listServiceStarted } from './kinds/service-driven.js';
import { planServiceGates } from './gates/service-gates.js';
import { planSuspended } from './not-planned.js';
import { targeted } from './target.js';
import { flowWindowsOf } from './windows/windows.js';
import { recordAnnotations } from './annotations.js';
import { ownershipErrors, planSharedId, sharedDesiredKeys } from './ownership.js';
import type { Dependents } from './not-planned.js';
import { isChangeAction, PLAN_VERSION } from './types.js';
import type { Change, ObjectPlan, Plan, PlanOptions, PlanScope, PlanSummary } from './types.js';

export interface PlanInput {
  desired: DesiredModel;
  live: LiveState;
  inventory: Inventory;
  options: PlanOptions;
  now: Date;
  revision: string | null;
  /** Where the applied manifests sit (prune scope, recorded files); absent: everything is in scope. */
  scope?: PlanScope;
  /** The state's indexes, built while the reads were in flight (`preparePlan`); used only for this desired set and inventory. */
  prepared?: PlanPrep;
}

/** What a plan needs of the desired set and the inventory alone, made before the live state is read. */
export interface PlanPrep {
  desired: DesiredModel;
  index: StateIndex;
  /** Each of `desired`'s deployment manifests' identity hash (the hash the state records). */
  identityHashes: ReadonlyMap<DeploymentManifest, string>;
}

/** Builds the plan's state indexes and hashes in slices of the event loop, for a pass whose reads are in flight. */
export async function preparePlan(desired: DesiredModel, inventory: Inventory): Promise<PlanPrep> {
  const index = await StateIndex.inTurns(inventory, desiredPredicate(desired));
  return { desired, index, identityHashes: await identityHashesInTurns(desired.deployments) };
}

export function plan(input: PlanInput): Plan {
  const { desired, live, inventory, options, now, revision, scope } = input;
  const prepared = input.prepared?.desired === desired ? input.prepared : undefined;
  const index = prepared?.index;
  const isDesired = index?.isDesired ?? desiredPredicate(desired);
  const ctx = new PlanContext(live, inventory, options, now, { isDesired, scope, index, identityHashes: prepared?.identityHashes });
  const fileOf = (m: { source: { file: string } }): string | undefined =>
    scope ? (scope.single ? scope.path : joinKey(scope.rootKey, m.source.file)) : undefined;
  const errors: string[] = [];
  const desiredCount = desired.packages.length + desired.flows.length + desired.deployments.length + desired.tenantUploads.length;
  if (options.prune && desiredCount === 0 && !options.pruneAll && Object.values(inventory.objects).some((e) => ctx.inScope(e))) {
    errors.push(
      'refusing to prune: the desired set is empty, which would delete everything packsync owns (use --prune-all if that is really intended)',
    );
  } else if (!live.serviceTime && usesWindows(desired)) {
    // A clock read that failed is an error of the pass, never "inside the window" (docs/policy.md).
    errors.push(WINDOW_CLOCK_ERROR);
  } else {
    // Every record written for an object carries the manifest file it was planned from; a
    // suspended object is skipped here, the same way for every kind.
    for (const [flow, spec] of flowWindowsOf(desired.flows)) ctx.flowWindows.set(flow, spec);
    ctx.desiredDeployments = desired.deployments;
    const shared = sharedDesiredKeys(ctx);
    const each = <M extends Manifest>(ms: readonly M[], planOne: (c: PlanContext, m: M) => void, dependents?: Dependents): void => {
      for (const m of ms) {
        ctx.setFile(fileOf(m));
        const sharing = shared.size > 0 ? shared.get(`${m.kind}/${m.metadata.name}`) : undefined;
        if (sharing) planSharedId(ctx, m, `${m.kind}/${m.metadata.name}`, sharing, dependents?.refs);
        else if (m.spec.suspend) planSuspended(ctx, m, dependents);
        else {
          const from = ctx.objects.length;
          planOne(ctx, m);
          recordAnnotations(ctx, m, from);
        }
      }
    };
    // Kinds in the registry's order (referenced kinds first), each by its planner in plan/kinds/.
    const planKind = <K extends ObjectKind>(kind: K): void => {
      const planner: KindPlanner<K> = KIND_PLANNERS[kind];
      const manifests = desired[OBJECT_KIND_SPECS[kind].desired] as readonly Manifest[] as readonly ManifestOf<K>[];
      each(manifests, planner.plan, planner.dependents?.(ctx));
    };
    for (const kind of OBJECT_KINDS_IN_ORDER) planKind(kind);
    ctx.setFile(undefined);
    planPrune(ctx, isDesired);
    planLeftoverIntents(ctx);
    listServiceStarted(ctx, ctx.objects);
    planServiceGates(ctx, desired.flows);
  }
  errors.push(...ownershipErrors(ctx.objects));
  const conflicts = ctx.objects.filter((o) => o.change === 'conflict').length;
  if (conflicts > 0) errors.push(conflictSummary(conflicts, Object.keys(inventory.objects).length === 0));
  ctx.objects.sort(byKey);
  const whole: Plan = {
    version: PLAN_VERSION,
    revision,
    generatedAt: now.toISOString(),
    options,
    objects: ctx.objects,
    actions: ctx.actions,
    summary: summarize(ctx.objects),
    errors,
    ...(ctx.gates.length > 0 ? { gates: ctx.gates } : {}),
    ...(ctx.windows.length > 0 ? { windows: ctx.windows } : {}),
  };
  return options.targets && options.targets.length > 0 ? targeted(whole, options.targets, summarize) : whole;
}

export const WINDOW_CLOCK_ERROR =
  "the service's clock could not be read (no Date header): change windows cannot be judged, so nothing was planned; the next pass tries again";

function usesWindows(desired: DesiredModel): boolean {
  return desired.flows.some((f) => f.spec.windows !== undefined) || desired.deployments.some((d) => d.spec.windows !== undefined);
}

/** A manifest's file key: the desired root's key joined with its root-relative path, with `/`. */
function joinKey(rootKey: string, rel: string): string {
  const r = rel.replaceAll('\\', '/');
  if (rootKey === '' || rootKey === '.') return r;
  return rootKey.endsWith('/') ? `${rootKey}${r}` : `${rootKey}/${r}`;
}

/**
 * Ownership honesty (docs/reconcile.md): live objects that match manifests but are not owned stop the whole
 * plan, so an empty or lost state can never look like success. One line, naming the way out.
 */
function conflictSummary(n: number, stateEmpty: boolean): string {
  const what = `${n} object(s) of this repository already exist live but are not in packsync's state`;
  return stateEmpty
    ? `the state is empty (a new or lost state, or the wrong one?) and ${what}; nothing was changed: check --state-dir or --state-url (and PACKSYNC_STATE_DIR, PACKSYNC_STATE_URL), or run with --adopt to take them over`
    : `${what}; nothing was changed: run with --adopt to take them over, or rename the manifests`;
}

/**
 * Orders objects by key. Every key is `${kind}/${name}`, so within one kind comparing names gives
 * the same order as comparing keys, without flattening 100k concatenated key strings and walking
 * their common prefix on every comparison.
 */
function byKey(a: ObjectPlan, b: ObjectPlan): number {
  if (a.kind !== b.kind) return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * "Is this inventory key (`Kind/name`) still in the desired set?", answered from per-kind name sets
 * built on the first question (a plan over an empty inventory asks none). Cheaper than building and
 * hashing a `Kind/name` string for every desired object.
 */
function desiredPredicate(desired: DesiredModel): (key: string) => boolean {
  let names: Record<Kind, Set<string>> | undefined;
  return (key) => {
    names ??= Object.fromEntries(
      OBJECT_KINDS.map((k) => [k, new Set<string>(desired[OBJECT_KIND_SPECS[k].desired].map((m) => m.metadata.name))]),
    ) as Record<Kind, Set<string>>;
    const slash = key.indexOf('/');
    if (slash < 0) return false;
    const kind = key.slice(0, slash);
    return Object.hasOwn(names, kind) && names[kind as Kind].has(key.slice(slash + 1));
  };
}

const BUCKET: Record<Change, keyof PlanSummary> = {
  create: 'create',
  update: 'change',
  replace: 'change',
  adopt: 'change',
  forget: 'change',
  delete: 'delete',
  move: 'change',
  none: 'unchanged',
  orphan: 'unchanged',
  waiting: 'waiting',
  skipped: 'blocked',
  conflict: 'blocked',
  'requires-replacement': 'blocked',
  drift: 'drifted',
  error: 'blocked',
};

/**
 * A replaced deployment is deleted and added again: the add is a create (its delete is counted
 * from `destroys`), as the deployments a flow replacement adds to the new flow are.
 */
function bucketOf(o: ObjectPlan): keyof PlanSummary {
  return o.change === 'replace' && o.kind === 'Deployment' ? 'create' : BUCKET[o.change];
}

export function summarize(objects: readonly ObjectPlan[]): PlanSummary {
  const s: PlanSummary = {
    create: 0,
    change: 0,
    delete: 0,
    unchanged: 0,
    waiting: 0,
    blocked: 0,
    suspended: 0,
    drifted: 0,
    orphaned: 0,
    errors: 0,
  };
  for (const o of objects) {
    // A suspended object is skipped by its own manifest's choice: nothing blocks it.
    // An orphan that requires pruning is counted there only: once per object, so the counts add up
    // to the objects listed (it was also "unchanged", which git no longer describes).
    if (o.suspended) s.suspended!++;
    else if (o.requiresPruning) s.orphaned!++;
    else s[bucketOf(o)]++;
    if (o.change === 'error') s.errors!++;
    // Deployments a replacement destroys are deletes, whatever else the plan says (docs/reconcile.md).
    if (o.destroys) s.delete += o.destroys.length;
  }
  return s;
}

/** True when applying the plan would write anything (to the service or the inventory). */
export function hasChanges(p: Plan): boolean {
  return p.actions.some(isChangeAction);
}
