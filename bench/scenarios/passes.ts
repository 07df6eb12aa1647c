/**
 * The reconcile passes the in-process fleet scenarios (noop-large, converge-large, noop-growth,
 * gates-300) run: an untimed first pass that converges the fleet, and a pass timed by the wall clock
 * and counted in the simulator's journal.
 */
import type { ApiClient } from '../../src/api/client.js';
import { reconcile } from '../../src/engine/reconcile.js';
import type { ReconcileOutput } from '../../src/engine/reconcile.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import type { TestSim } from '../../test/support/sim.js';

type Planned = Extract<ReconcileOutput, { kind: 'planned' }>;

/** Applies `repo` with `concurrency` actions at a time; throws unless every action succeeded. */
export async function convergeFirst(
  api: ApiClient,
  repo: string,
  stateDir: string,
  concurrency: number,
  what = 'the fleet',
): Promise<void> {
  const first = await reconcile({
    path: repo,
    api,
    stateDir,
    planOptions: DEFAULT_PLAN_OPTIONS,
    apply: true,
    applyOptions: { concurrency },
  });
  if (first.kind !== 'planned' || (first.result?.failed ?? 1) > 0) throw new Error(`${what} did not converge`);
}

export interface TimedPass {
  pass: Planned & { result: NonNullable<Planned['result']> };
  wallMs: number;
  /** The journal's length before the pass, and the calls the pass made. */
  journalStart: number;
  calls: number;
}

/** One reconcile pass with `readConcurrency` reads at a time; throws (`what` failed) unless it planned and applied. */
export async function timedPass(
  sim: Pick<TestSim, 'journalCount'>,
  api: ApiClient,
  repo: string,
  stateDir: string,
  readConcurrency: number,
  what = 'pass',
): Promise<TimedPass> {
  const journalStart = await sim.journalCount();
  const t0 = performance.now();
  const pass = await reconcile({ path: repo, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS, apply: true, readConcurrency });
  const wallMs = performance.now() - t0;
  const calls = (await sim.journalCount()) - journalStart;
  if (pass.kind !== 'planned' || !pass.result) throw new Error(`${what} failed`);
  return { pass: { ...pass, result: pass.result }, wallMs, journalStart, calls };
}
