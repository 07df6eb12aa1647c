/**
 * One reconcile pass and its variants, the sequences every entry point shares (CLI plan/apply, a
 * saved plan, the demo, the agent loop): load + validate → read live → plan (pure) → apply. This
 * file only sequences; each step lives in its own module.
 */
import { expiredAt, reviewBaselines } from '../plan/baselines.js';
import type { PacksyncApi } from '../api/operations.js';
import { applyPlan } from '../apply/executor.js';
import type { ApplyOptions, ApplyResult } from '../apply/executor.js';
import { ApplyError } from '../apply/errors.js';
import type { InventoryStore } from '../state/inventory-store.js';
import { openStore } from '../state/open-state.js';
import type { State } from '../state/open-state.js';
import { readLiveState, startInventoryReads } from '../live/snapshot.js';
import type { InventoryReads } from '../live/snapshot.js';
import type { LiveState } from '../live/types.js';
import { loadManifests } from '../manifests/load.js';
import { windowsClosedSince } from '../plan/windows/saved-plan-windows.js';
import type { LoadOptions } from '../manifests/load.js';
import { manifestCacheFor } from '../manifests/parse-cache.js';
import type { DesiredModel, Problem } from '../manifests/model.js';
import { planDigests } from '../plan/hash.js';
import { plan as computePlan, preparePlan } from '../plan/planner.js';
import type { PlanInput, PlanPrep } from '../plan/planner.js';
import type { Plan, PlanOptions, PlanScope } from '../plan/types.js';
import { carryOutRequests, requestsPending } from './gate-requests.js';
import type { CarriedCommand } from './gate-requests.js';
import { planScope } from './scope.js';
import { annotateReach, movingFlowIds } from '../plan/reach.js';
import type { TenantDevices } from '../plan/reach.js';
import { addReachIfOpen } from '../plan/reach-if-open.js';
import { readTenantDevices } from '../live/wave-devices.js';
import { digestContentDir } from '../manifests/content.js';
import type { ContentFileDigest } from '../manifests/content.js';
import { OP } from '../plan/ops.js';
import { errorMessage } from '../util/errors.js';
import { RolloutScan, recordPassHistory } from './history-observer.js';

export interface PlanPassInput {
  path: string;
  api: PacksyncApi;
  stateDir: string;
  /** Where the state lives (the CLI's choice of directory or remote store); else `stateDir`, unlocked. */
  state?: State;
  planOptions: PlanOptions;
  /** Git commit when the source is git; otherwise a digest of the desired set is used. */
  revision?: string | null;
  /** The verified signer of `revision` (signature verification), named in the plan header. */
  signer?: string;
  loadOptions?: LoadOptions;
  /** Reads kept going; undefined: twice the client's request slots (live/read-concurrency.ts). */
  readConcurrency?: number | undefined;
  now?: () => Date;
  signal?: AbortSignal;
  /** Plan only, leaving queued promote/resume requests to the next pass (an update's pull request body). */
  leaveRequests?: boolean;
  /** Digest the live state and inventory into the plan (`Plan.digests`): for a plan saved or shown as JSON. */
  digests?: boolean;
}

export interface ReconcileInput extends PlanPassInput {
  apply: boolean;
  applyOptions?: ApplyOptions;
  /** Graceful stop: no new action starts, calls in flight finish. */
  stopSignal?: AbortSignal;
  /** Told the plan before anything of it is applied (the agent names a directory's revision on every later log line). */
  onPlanned?: (plan: Plan) => void;
  /**
   * Asked before applying (the agent's two-person rule, docs/policy.md): false keeps the whole
   * revision from being applied (nothing of it is written); the plan is still returned.
   */
  mayApply?: (plan: Plan) => Promise<boolean>;
}

export type PlannedPass = {
  kind: 'planned';
  plan: Plan;
  desired: DesiredModel;
  warnings: Problem[];
  store: InventoryStore;
  live?: LiveState;
  /** The rollouts found in the owned flows' details as they arrived, for the history (history-observer.ts). */
  rollouts?: RolloutScan;
  /** The promote/resume requests this pass carried out before planning. */
  commands?: CarriedCommand[];
};
export type PlanPassOutput = { kind: 'invalid'; problems: Problem[]; revision: string | null } | PlannedPass;

export type ReconcileOutput =
  | { kind: 'invalid'; problems: Problem[]; revision: string | null }
  /** `live` and `inventory` (as left by the apply) let the agent show rollouts without reading again. */
  | {
      kind: 'planned';
      plan: Plan;
      desired: DesiredModel;
      warnings: Problem[];
      result?: ApplyResult;
      live?: LiveState;
      inventory?: InventoryStore['inventory'];
      commands?: CarriedCommand[];
      /** Set when `mayApply` refused: the revision was planned, nothing of it applied. */
      withheld?: true;
    };

/** Load, validate, read live and plan. Nothing is written. */
export async function planPass(input: PlanPassInput): Promise<PlanPassOutput> {
  const now = input.now ?? ((): Date => new Date());
  // Files unchanged since the last load are not parsed again: the agent's passes reuse the
  // process's cache; a local state directory keeps it for the next process too (remote state: memory only).
  const cache = manifestCacheFor(input.state ? input.state.localDir : input.stateDir);
  // A Baseline's exceptions expire by the service's clock when a request has told it (docs/baselines.md).
  const loadedAt = input.api.serviceTime?.() ?? now();
  const store = await openStore(input.state ?? input.stateDir);
  const readOptions = {
    ...(input.readConcurrency ? { concurrency: input.readConcurrency } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };
  // The reads the inventory alone names run while the manifests load, once the load knows it reads
  // what its last valid load read (docs/architecture.md, "The engine"); not when queued
  // promote/resume requests will change what they would read.
  const queued = !input.leaveRequests && (await requestsPending(input.state));
  let early: InventoryReads | undefined;
  // The history's rollouts found in each owned flow as its answer arrives (history-observer.ts).
  const rollouts = new RolloutScan(store.inventory.history);
  const onKnownValid = (): void => {
    if (!queued) early ??= startInventoryReads(input.api, store.inventory, { ...readOptions, onFlowDetails: (d) => rollouts.see(d) });
  };
  // A directory source's revision is a digest of what was loaded (manifests/load-revision.ts).
  const wantRevision = input.revision === undefined || input.revision === null;
  let loaded = await loadManifests(input.path, { cache, now: loadedAt, revision: wantRevision, onKnownValid, ...input.loadOptions });
  const errors = loaded.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0 || !loaded.desired) {
    early?.stop();
    return { kind: 'invalid', problems: loaded.problems, revision: input.revision ?? null };
  }
  let desired = loaded.desired;
  // Requests queued for this process while it holds the lock (promote/resume), before planning.
  const commands = input.leaveRequests ? [] : await carryOutRequests(input.state, store, input.api);
  // A request carried out (one queued after the check above) moved what the early reads saw.
  if (commands.length > 0) early?.stop();
  let revision = input.revision ?? loaded.revision ?? null;
  // What the plan needs of the files and the state alone is made while the reads are in flight.
  let prep = prepareWhileReading(input.path, desired, loaded.files, store.inventory);
  let snap = await readLiveState(input.api, desired, store.inventory, readOptions, commands.length > 0 ? undefined : early);
  const clock = input.api.serviceTime?.() ?? loadedAt;
  if (exceptionsFlip(desired, loadedAt, clock)) {
    // The service's clock puts an exception on the other side of its expiry: expand again by it.
    loaded = await loadManifests(input.path, { cache, now: clock, revision: wantRevision, ...input.loadOptions });
    if (!loaded.desired) return { kind: 'invalid', problems: loaded.problems, revision: input.revision ?? null };
    desired = loaded.desired;
    prep = prepareWhileReading(input.path, desired, loaded.files, store.inventory);
    snap = await readLiveState(input.api, desired, store.inventory, readOptions);
    revision = input.revision ?? loaded.revision ?? null;
  }
  const { scope, prepared } = await prep;
  rollouts.useIndex(prepared.index);
  const planInput: PlanInput = {
    desired,
    live: snap.live,
    inventory: store.inventory,
    options: input.planOptions,
    now: now(),
    revision,
    scope,
    prepared,
  };
  const p = computePlan(planInput);
  if (input.digests) p.digests = planDigests(snap.live, store.inventory);
  reviewBaselines(p, desired, clock, { allowShrink: input.planOptions?.allowShrink === true, entries: store.inventory.objects });
  p.reads = snap.reads + (await addReach(p, planInput, input));
  if (input.signer) p.signer = input.signer;
  const warnings = loaded.problems.filter((x) => x.severity === 'warning');
  return { kind: 'planned', plan: p, desired, warnings, store, live: snap.live, rollouts, ...(commands.length > 0 ? { commands } : {}) };
}

/**
 * The prune scope and the plan's state indexes: they need the files read and the state, not the
 * live state, so they are made while the reads are in flight (docs/architecture.md, "The engine").
 * Awaited after the reads; until then a failure must not count as unhandled.
 */
function prepareWhileReading(
  path: string,
  desired: DesiredModel,
  read: readonly string[],
  inventory: InventoryStore['inventory'],
): Promise<{ scope: PlanScope; prepared: PlanPrep }> {
  const owned = Object.values(inventory.objects).map((e) => e.file);
  const made = (async (): Promise<{ scope: PlanScope; prepared: PlanPrep }> => ({
    scope: await planScope(path, desired.root, { read, owned }),
    prepared: await preparePlan(desired, inventory),
  }))();
  made.catch(() => undefined);
  return made;
}

/**
 * Blast radius (docs/policy.md): device counts of the waves of flows the plan moves, and the
 * revision's reach as if every window were open when one holds moves (the two-person rule judges
 * that); returns the reads made.
 */
async function addReach(p: Plan, planned: PlanInput, input: PlanPassInput): Promise<number> {
  const { live } = planned;
  const flows = movingFlowIds(p, live);
  let devices: TenantDevices = new Map();
  let reads = 0;
  if (flows.length > 0) {
    const read = await readTenantDevices(input.api, live, flows, {
      ...(input.readConcurrency ? { concurrency: input.readConcurrency } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    annotateReach(p, live, read.devices);
    ({ devices, reads } = read);
  }
  addReachIfOpen(p, planned, devices);
  return reads;
}

/**
 * Executes exactly the plan that was shown (and approved). A plan with plan-wide errors (prune of
 * everything, conflicts) writes nothing. Takes the pass over: its live state and desired set are
 * let go of before the writes (`letGoOfReads`).
 */
export async function applyPlanned(planned: PlannedPass, api: PacksyncApi, options: ApplyOptions = {}): Promise<ApplyResult | undefined> {
  const { plan, store, live } = planned;
  if (plan.errors.length > 0) return undefined;
  const reads = live ? await recordPassHistory(store, live, plan, api, planned.rollouts) : 0;
  letGoOfReads(planned);
  const result = await applyPlan(plan, api, store, { revision: plan.revision, ...options }).catch(async (e: unknown) => {
    await store.close().catch(() => undefined);
    throw e;
  });
  // Everything durable; the journal folded into a new snapshot when it is worth it (InventoryStore.foldDue), off the per-action path.
  await store.close();
  return { ...result, reads: result.reads + reads };
}

/**
 * The writes need only the plan and the store: the pass's live state and desired set are let go
 * once the history is recorded, so the caller's pass does not hold them through the writes (~10 MB
 * of a patch-tuesday apply's heap for ten seconds; docs/performance.md). A caller that wants them
 * afterwards takes them first, as `reconcile` does for the agent's status.
 */
function letGoOfReads(planned: PlannedPass): void {
  const pass = planned as { live?: LiveState; desired?: DesiredModel; rollouts?: RolloutScan };
  delete pass.live;
  delete pass.desired;
  delete pass.rollouts;
}

/**
 * Executes a saved plan after checking that neither the live state nor the inventory moved since it
 * was made (Terraform's rule); throws `STALE_PLAN` otherwise, before any write.
 */
export async function applySavedPlan(
  saved: { plan: Plan; desired: DesiredModel },
  api: PacksyncApi,
  state: State | string,
  options: ApplyOptions = {},
  readConcurrency?: number,
): Promise<ApplyResult | undefined> {
  const store = await openStore(state);
  const snap = await readLiveState(api, saved.desired, store.inventory, readConcurrency ? { concurrency: readConcurrency } : {});
  const now = planDigests(snap.live, store.inventory);
  const moved = [
    now.live !== saved.plan.digests?.live ? 'the live state' : '',
    now.inventory !== saved.plan.digests?.inventory ? 'the inventory' : '',
  ].filter(Boolean);
  if (moved.length > 0) {
    throw new ApplyError('STALE_PLAN', `stale plan: ${moved.join(' and ')} changed since the plan was made; run \`packsync plan\` again`);
  }
  // A window open when the plan was made may have closed since (docs/policy.md, "Saved plans").
  const closed = windowsClosedSince(saved.plan, saved.desired, new Date(snap.live.serviceTime ?? Date.now()));
  if (closed.length > 0) {
    await store.close().catch(() => undefined);
    throw new ApplyError(
      'STALE_PLAN',
      `stale plan: a change window closed since the plan was made (${closed.join('; ')}); nothing was applied: run \`packsync plan\` again (its moves then wait for the window)`,
    );
  }
  const edited = await changedContent(saved.plan);
  if (edited.length > 0) {
    throw new ApplyError(
      'STALE_PLAN',
      `stale plan: content changed since the plan was made (${edited.join('; ')}); run \`packsync plan\` again and review it`,
    );
  }
  return applyPlanned({ kind: 'planned', plan: saved.plan, desired: saved.desired, warnings: [], store, live: snap.live }, api, options);
}

/** Plan, then apply unless `apply` is false (the agent's pass). */
export async function reconcile(input: ReconcileInput): Promise<ReconcileOutput> {
  const planned = await planPass(input);
  if (planned.kind === 'invalid') return planned;
  const { plan: p, desired, warnings } = planned;
  input.onPlanned?.(p);
  const seen = {
    ...(planned.live ? { live: planned.live } : {}),
    inventory: planned.store.inventory,
    ...(planned.commands ? { commands: planned.commands } : {}),
  };
  if (!input.apply) return { kind: 'planned', plan: p, desired, warnings, ...seen };
  if (input.mayApply && !(await input.mayApply(p))) {
    await planned.store.close();
    return { kind: 'planned', plan: p, desired, warnings, ...seen, withheld: true };
  }
  const result = await applyPlanned(planned, input.api, {
    ...input.applyOptions,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.stopSignal ? { stopSignal: input.stopSignal } : {}),
  });
  return result
    ? { kind: 'planned', plan: p, desired, warnings, result, ...seen }
    : { kind: 'planned', plan: p, desired, warnings, ...seen };
}

/** Whether some Baseline exception applies at one of the two times and not at the other. */
function exceptionsFlip(desired: DesiredModel, a: Date, b: Date): boolean {
  if (!desired.baselines || a.getTime() === b.getTime()) return false;
  return desired.baselines.some((bl) => bl.exceptions.some((e) => expiredAt(e, a) !== expiredAt(e, b)));
}

/**
 * The content a saved plan uploads, digested again before anything is written: Terraform embeds the
 * configuration in its plan file, and so a plan here is applied only with the bytes that were
 * reviewed (the uploader checks them once more while it sends them). Names each file that differs.
 */
async function changedContent(plan: Plan): Promise<string[]> {
  const out: string[] = [];
  for (const a of plan.actions) {
    if (a.op !== OP.uploadContent) continue;
    const now = await digestContentDir(a.dir).catch((e: unknown) => ({ digest: `unreadable: ${errorMessage(e)}`, fileList: [] }));
    if (now.digest === a.digest) continue;
    out.push(`${a.key}: ${describeFileChanges(a.files ?? [], now.fileList)}`);
  }
  return out;
}

function describeFileChanges(before: ContentFileDigest[], after: ContentFileDigest[]): string {
  const was = new Map(before.map((f) => [f.path, f]));
  const is = new Map(after.map((f) => [f.path, f]));
  const lines: string[] = [];
  for (const f of after) {
    const old = was.get(f.path);
    if (!old) lines.push(`${f.path} added (${f.size} bytes)`);
    else if (old.sha256 !== f.sha256) lines.push(`${f.path} changed (${old.size} → ${f.size} bytes)`);
  }
  for (const f of before) if (!is.has(f.path)) lines.push(`${f.path} removed`);
  return lines.length > 0 ? lines.join(', ') : 'its files differ from the plan';
}
