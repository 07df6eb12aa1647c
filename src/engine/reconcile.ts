/**
 * One reconcile pass, the sequence every entry point shares (CLI plan/apply, the agent loop):
 * load + validate → read live → plan (pure) → apply. This file only sequences; each step lives in
 * its own module.
 */
import type { PacksyncApi } from '../api/operations.js';
import { applyPlan } from '../apply/executor.js';
import type { ApplyOptions, ApplyResult } from '../apply/executor.js';
import { InventoryStore } from '../apply/inventory-store.js';
import { readLiveState } from '../live/snapshot.js';
import { loadManifests } from '../manifests/load.js';
import type { LoadOptions } from '../manifests/load.js';
import type { DesiredModel, Problem } from '../manifests/model.js';
import { hashValue } from '../plan/hash.js';
import { plan as computePlan } from '../plan/planner.js';
import type { Plan, PlanOptions } from '../plan/types.js';

export interface ReconcileInput {
  path: string;
  api: PacksyncApi;
  stateDir: string;
  planOptions: PlanOptions;
  /** Git commit when the source is git; otherwise a digest of the desired set is used. */
  revision?: string | null;
  apply: boolean;
  applyOptions?: ApplyOptions;
  loadOptions?: LoadOptions;
  readConcurrency?: number;
  now?: () => Date;
  signal?: AbortSignal;
  /** Graceful stop: no new action starts, calls in flight finish. */
  stopSignal?: AbortSignal;
}

export type ReconcileOutput =
  | { kind: 'invalid'; problems: Problem[]; revision: string | null }
  | { kind: 'planned'; plan: Plan; desired: DesiredModel; warnings: Problem[]; result?: ApplyResult };

/** A stable revision for a directory source: the digest of what was loaded, not of file times. */
export function desiredRevision(desired: DesiredModel): string {
  const strip = (xs: readonly { source: unknown }[]): unknown[] => xs.map(({ source: _s, ...rest }) => rest);
  return `sha256:${hashValue([strip(desired.packages), strip(desired.flows), strip(desired.deployments), strip(desired.tenantUploads)])}`;
}

export async function reconcile(input: ReconcileInput): Promise<ReconcileOutput> {
  const now = input.now ?? ((): Date => new Date());
  const loaded = await loadManifests(input.path, input.loadOptions);
  const errors = loaded.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0 || !loaded.desired) {
    return { kind: 'invalid', problems: loaded.problems, revision: input.revision ?? null };
  }
  const desired = loaded.desired;
  const revision = input.revision ?? desiredRevision(desired);
  const store = await InventoryStore.open(input.stateDir);
  const snap = await readLiveState(input.api, desired, store.inventory, {
    ...(input.readConcurrency ? { concurrency: input.readConcurrency } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const p = computePlan({ desired, live: snap.live, inventory: store.inventory, options: input.planOptions, now: now(), revision });
  p.reads = snap.reads;
  const warnings = loaded.problems.filter((x) => x.severity === 'warning');
  if (!input.apply || p.errors.length > 0) return { kind: 'planned', plan: p, desired, warnings };
  const result = await applyPlan(p, input.api, store, {
    ...input.applyOptions,
    revision,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.stopSignal ? { stopSignal: input.stopSignal } : {}),
  });
  return { kind: 'planned', plan: p, desired, warnings, result };
}
