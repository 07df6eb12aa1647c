/**
 * What a pass tells the outside: events (docs/agent.md), per-object progress, the Drifted condition and
 * gauge, and the rollout board. The loop calls it at fixed points of a pass; it keeps what it needs
 * across passes (open failures, each rollout's last wave) to emit `Recovered`, `DriftHealed`,
 * `WaveAdvanced` and `RolloutCompleted` only on a change. Nothing here can fail a pass.
 */
import type { ExpiredException } from '../plan/types.js';
import type { Logger } from 'pino';
import type { PacksyncApi } from '../api/operations.js';
import type { ApplyEvent } from '../apply/events.js';
import { OP } from '../plan/ops.js';
import type { ReconcileOutput } from '../engine/reconcile.js';
import type { AgentMetrics } from './http/metrics.js';
import { ROLLOUT_SERIES_LIMIT } from './http/metrics.js';
import { redactUrl } from './source/redact-url.js';
import { buildRollouts, refreshRollouts, serviceRollouts } from './rollouts.js';
import { expiredExceptionKey, expiredExceptionText } from './expired-exception.js';
import type { Rollout } from './http/status-types.js';
import type { StatusTracker } from './http/status.js';
import type { PassResult } from './http/status-types.js';

type Planned = Extract<ReconcileOutput, { kind: 'planned' }>;

/** `Source/<url>` with any user or token in the URL removed. */
export function sourceObject(source: string): string {
  return `Source/${redactUrl(source)}`;
}

/** The failures this observer reports, and so answers with `Recovered` (gates and updates answer their own). */
const OBSERVED_FAILURES: ReadonlySet<string> = new Set(['ValidationFailed', 'ApplyFailed', 'VerificationFailed']);

export class PassObserver {
  /** Failing objects (and `Source/…` for a whole revision) not yet answered by `Recovered`. */
  private readonly failing = new Set<string>();
  private readonly lastRollouts = new Map<string, { id: string; wave: number; status: string }>();
  private readonly source: string;

  constructor(
    private readonly o: {
      api: PacksyncApi;
      status: StatusTracker;
      metrics: AgentMetrics;
      logger: Logger;
      /** False while signature verification refuses the tracked head (the last verified revision is applied instead). */
      sourceReady?: () => boolean;
      /** Failures told before a restart and not answered yet (the notifications store's open records). */
      openFailures?: readonly { object: string; reason: string }[];
    },
  ) {
    this.source = sourceObject(o.status.status.source.source ?? '');
    // A failure that cleared while the agent was down is answered by the first pass that finds it gone
    // (regression: `failing` was memory-only, so it stayed open for ever after a restart).
    for (const f of o.openFailures ?? []) {
      if (!OBSERVED_FAILURES.has(f.reason)) continue;
      if (f.object === this.source || !f.object.startsWith('Source/')) this.failing.add(f.object);
    }
  }

  /** Apply events become per-object progress in `/status` while the pass runs. */
  applyEvent(e: ApplyEvent): void {
    const s = this.o.status;
    switch (e.type) {
      case 'action-start':
        if (e.op !== OP.record) s.progress(e.key, 'working', e.description);
        return;
      case 'wait':
        s.progress(e.key, 'waiting', e.what, e.elapsedMs);
        return;
      case 'action-done':
        if (e.op !== OP.record) s.progress(e.key, 'done', e.description, e.durationMs);
        return;
      case 'action-failed':
        s.progress(e.key, 'failed', `${e.description}: ${e.code}`);
        return;
      default:
        return;
    }
  }

  invalid(revision: string | null, message: string): void {
    this.o.status.event({ reason: 'ValidationFailed', object: this.source, message, revision });
    this.failing.add(this.source);
  }

  /**
   * The pass failed before any object result (API outage, timeout, or the source: a deleted branch,
   * an unreachable git server): one failure for the revision, so an operator hears of it and of the
   * `Recovered` after it (regression: source failures raised no event, then an orphan Recovered).
   * A refused signature is the exception: `VerificationFailed` already said it.
   */
  crashed(revision: string | null, message: string, code: string): void {
    if (code !== 'SOURCE_UNVERIFIED') this.o.status.event({ reason: 'ApplyFailed', object: this.source, message, revision });
    this.failing.add(this.source);
  }

  async planned(out: Planned, revision: string | null, signal?: AbortSignal): Promise<void> {
    const { status, metrics, logger } = this.o;
    const unhealed: string[] = [];
    for (const o of out.plan.objects) {
      if (!o.drift) continue;
      metrics.drift.inc({ kind: o.kind });
      const reason = o.reasons[0] ?? `changed outside packsync (${o.drift})`;
      if (status.event({ reason: 'DriftDetected', object: o.key, message: reason, revision }))
        logger.warn({ object: o.key }, `drift: ${reason}`);
      if (o.drift === 'healed') status.event({ reason: 'DriftHealed', object: o.key, message: `healed: ${reason}`, revision });
      else unhealed.push(o.key);
    }
    this.expiredExceptions(out.plan.expiredExceptions ?? []);
    const started = out.plan.objects.flatMap((o) => (o.serviceStarted ?? []).map((d) => ({ flow: o.key, ...d })));
    status.status.serviceStarted = started;
    // Owned live objects whose manifest left git: out of sync until pruned (docs/agent.md).
    const orphaned = out.plan.objects.filter((o) => o.requiresPruning === true).map((o) => o.key);
    status.drifted(unhealed, orphaned);
    metrics.driftedObjects.set(unhealed.length);
    metrics.orphanedObjects.set(orphaned.length);
    const failedNow = new Set<string>();
    for (const o of out.result?.objects ?? []) {
      if (o.outcome !== 'failed') continue;
      failedNow.add(o.key);
      status.event({ reason: 'ApplyFailed', object: o.key, message: `${o.error?.code ?? ''}: ${o.error?.message ?? ''}`, revision });
    }
    for (const o of out.plan.objects) {
      // Plan errors and conflicts are results too; counted once per pass whichever list carries them.
      if ((o.change === 'error' || o.change === 'conflict') && !failedNow.has(o.key)) {
        failedNow.add(o.key);
        status.event({
          reason: 'ApplyFailed',
          object: o.key,
          message: o.error ? `${o.error.code}: ${o.error.message}` : (o.reasons[0] ?? o.change),
          revision,
        });
      }
    }
    this.recoverObjects(out, failedNow, revision);
    await this.rollouts(out, revision, signal);
  }

  /** Failing objects that left the plan (their manifest left git), answered once the pass succeeds (`finished`). */
  private left: string[] = [];

  /**
   * An object that failed before and has a result now without failing has recovered. One that is in
   * neither the plan nor the result any more left git: it recovers too, once the pass succeeds
   * (regression: its failure stayed open for ever, the key being skipped as unseen).
   */
  private recoverObjects(out: Planned, failedNow: ReadonlySet<string>, revision: string | null): void {
    this.left = [];
    const seen = new Set([...(out.result?.objects ?? []).map((o) => o.key), ...out.plan.objects.map((o) => o.key)]);
    for (const key of [...this.failing]) {
      if (key === this.source || failedNow.has(key) || out.result?.aborted) continue;
      if (!seen.has(key)) {
        this.left.push(key);
        continue;
      }
      this.failing.delete(key);
      this.o.status.event({ reason: 'Recovered', object: key, message: `${key} applies again`, revision });
    }
    for (const k of failedNow) this.failing.add(k);
  }

  /**
   * Expired Baseline exceptions: on `/status` and the page, and one `ExceptionExpired` event each
   * (per object, not per commit), which notifications carry (docs/baselines.md, "Exceptions").
   */
  private expiredExceptions(list: readonly ExpiredException[]): void {
    const { status } = this.o;
    status.status.expiredExceptions = [...list];
    for (const e of list)
      status.event({
        reason: 'ExceptionExpired',
        object: expiredExceptionKey(e),
        message: `${expiredExceptionText(e)} (${e.at})`,
        revision: null,
      });
  }

  /** Writes made for the revision last applied: a repeated `ApplySucceeded` says what its count adds up to. */
  private applied: { revision: string | null; passes: number; writes: number } = { revision: null, passes: 0, writes: 0 };

  /**
   * After the pass: `ApplySucceeded` when something changed, `Recovered` once a revision-wide failure clears.
   * A refused head is such a failure although the pass applies the last verified revision and succeeds:
   * its `VerificationFailed` is answered only by a pass that applies a trusted head (regression: a
   * trusted commit after a refused one was applied, and no `Recovered` ever came).
   */
  finished(result: PassResult, revision: string | null, writes: number): void {
    const refused = this.o.sourceReady?.() === false;
    if (refused) this.failing.add(this.source);
    const left = this.left;
    this.left = [];
    if (result !== 'Succeeded') return;
    for (const key of left)
      if (this.failing.delete(key))
        this.o.status.event({ reason: 'Recovered', object: key, message: `${key} is no longer in git: its failure is over`, revision });
    const name = `revision ${revision ?? '(directory)'}`;
    if (writes > 0) {
      const a = this.applied.revision === revision ? this.applied : { revision, passes: 0, writes: 0 };
      a.passes++;
      a.writes += writes;
      this.applied = a;
      // One event per revision whose count grows: its message speaks for all of them, not the first.
      const message =
        a.passes === 1
          ? `${name} applied: ${writes} write(s)`
          : `${name} applied again: ${writes} write(s) in the latest pass, ${a.writes} in ${a.passes} passes`;
      this.o.status.event({ reason: 'ApplySucceeded', object: this.source, message, revision });
    }
    if (!refused && this.failing.delete(this.source)) {
      // "In sync" only when it is: reported drift (`--drift report`) leaves the revision applied, not in sync.
      const drifted = this.o.status.condition('Drifted')?.status === 'True';
      const message = drifted
        ? `${name} applies again (drift is reported, not healed: see the Drifted condition)`
        : `${name} is in sync again`;
      this.o.status.event({ reason: 'Recovered', object: this.source, message, revision });
    }
  }

  private async rollouts(out: Planned, revision: string | null, signal?: AbortSignal): Promise<void> {
    const { status } = this.o;
    const read = await this.readRollouts(out, signal);
    if (!read) return;
    const { list, service } = read;
    // Deployments with a promotion gate are reported by the gate tracker (with the verdict's
    // figures); reporting their wave changes here too would say the same thing twice.
    const gated = new Set((out.plan.gates ?? []).map((g) => g.key));
    for (const r of list) {
      const prev = this.lastRollouts.get(r.deployment);
      this.lastRollouts.set(r.deployment, { id: r.id, wave: r.currentWave, status: r.status });
      const ungated = !gated.has(r.deployment);
      if (ungated && r.gate?.verdict === 'holding')
        status.event({
          reason: 'GateHeld',
          object: r.deployment,
          message: `suspended by git at wave ${r.currentWave}/${r.waveCount} (spec.wave)`,
          revision,
          wave: r.currentWave,
          intended: true,
        });
      // The first sight of a deployment (after a start or a restart) is a baseline, not a change.
      if (!prev || prev.id !== r.id) continue;
      if (ungated && r.currentWave > prev.wave && r.status === 'Running')
        status.event({
          reason: 'WaveAdvanced',
          object: r.deployment,
          message: `wave ${r.currentWave}/${r.waveCount} started`,
          revision,
          wave: r.currentWave,
        });
      // Gated ones too (completion comes on the service's own schedule): the event's identity is the
      // gate tracker's, so it is never reported twice.
      if (r.status === 'Completed' && prev.status !== 'Completed')
        status.event({
          reason: 'RolloutCompleted',
          object: r.deployment,
          message: `${r.app} ${r.version} completed all ${r.waveCount} wave(s)`,
          revision,
          wave: r.waveCount,
        });
    }
    const windows = new Map((out.plan.windows ?? []).map((w) => [w.key, w]));
    for (const r of list) {
      const w = windows.get(r.deployment);
      if (w) r.window = w;
    }
    status.status.rollouts = list;
    status.status.windows = out.plan.windows ?? [];
    this.rolloutMetrics([...list, ...service]);
  }

  /**
   * Git's board (`list`) and the deployments the service started in owned flows (`service`, named
   * `Flow/NAME@VERSION`), both read again after the pass in one bounded refresh (git's first). The
   * service's are kept off the board (they are git's rollouts only once git names them) and are read
   * for their metrics, the same series as a rollout of git's (regression: they had none).
   */
  private async readRollouts(out: Planned, signal?: AbortSignal): Promise<{ list: Rollout[]; service: Rollout[] } | undefined> {
    if (!out.live || !out.inventory) return undefined;
    const started = serviceRollouts(this.o.status.status.serviceStarted, out.live);
    let all: Rollout[] = [...buildRollouts(out.desired, out.live, out.inventory), ...started];
    const touched = new Set(out.plan.objects.filter((o) => o.kind === 'Deployment' && o.actions.length > 0).map((o) => o.key));
    try {
      all = await refreshRollouts({
        api: this.o.api,
        rollouts: all,
        touched,
        desired: out.desired,
        live: out.live,
        inventory: out.inventory,
        ...(signal ? { signal } : {}),
      });
    } catch {
      // The pass's own snapshot is shown instead.
    }
    const ofService = new Set(started.map((r) => r.deployment));
    return { list: all.filter((r) => !ofService.has(r.deployment)), service: all.filter((r) => ofService.has(r.deployment)) };
  }

  /**
   * One series per rollout on the board and per deployment the service started in an owned flow,
   * rebuilt each pass so a pruned or removed deployment's series goes (docs/agent.md, HTTP).
   */
  private rolloutMetrics(list: Rollout[]): void {
    const { rolloutWave, rolloutSuccessRatio } = this.o.metrics;
    rolloutWave.reset();
    rolloutSuccessRatio.reset();
    for (const r of list.slice(0, ROLLOUT_SERIES_LIMIT)) {
      const labels = { deployment: r.deployment, flow: r.flow };
      rolloutWave.set(labels, r.status === 'Completed' ? r.waveCount : r.currentWave);
      if (r.successRate !== undefined) rolloutSuccessRatio.set(labels, r.successRate / 100);
    }
  }
}
