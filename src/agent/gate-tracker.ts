/**
 * What the agent makes of a pass's promotion gates (docs/promotion.md, docs/agent.md): the `gates` section of
 * `/status` (and `promotion` on each rollout of the board), the gate metrics, the events `WaveAdvanced`, `GateHeld`, `GateFailed`,
 * `RolloutCompleted` (and `Recovered` after a `packsync resume`), and when the next pass is due
 * because a soak or a deadline ends. Fed from the plan's gate reports and the apply result; the
 * planner decided everything, this only reports it.
 */
import type { ObjectOutcome } from '../apply/executor.js';
import type { CarriedCommand } from '../engine/gate-requests.js';
import type { GateLogEntry } from '../state/inventory-types.js';
import type { GateReport } from '../plan/gates/promotion.js';
import type { EventReason } from './events.js';
import type { AgentMetrics } from './http/metrics.js';
import type { StatusTracker } from './http/status.js';
import type { RolloutStatus } from './http/status-types.js';

/**
 * `carriedOut`: this pass's stop or hold of a failed gate landed. The deployment is held from now on,
 * although the hold enters the plan's gate report only at the next pass: the status says so at once.
 */
export function rolloutStatus(g: GateReport, carriedOut = false): RolloutStatus {
  const done = carriedOut && g.action !== 'none' && g.windowHeld === undefined;
  const r: RolloutStatus = {
    deployment: g.key,
    deploymentId: g.deploymentId,
    wave: g.wave,
    waveCount: g.waveCount,
    carriedOut: done,
    verdict: g.held ? 'Held' : (g.verdict ?? 'Unknown'),
    action: g.action,
    soak: { elapsedMs: g.soakElapsedMs, requiredMs: g.soakMs, since: g.since },
    successRate: g.successRate,
    devices: g.devices,
    tenants: g.tenants,
    reason: g.reason,
    line: done ? doneLine(g) : g.line,
  };
  if (g.held) r.held = { at: g.held.at, wave: g.held.wave, reason: g.held.reason, stopped: g.held.stopped };
  else if (carriedOut && (g.action === 'stop' || g.action === 'hold'))
    r.held = { at: g.at, wave: g.wave, reason: g.reason, stopped: g.action === 'stop' };
  if (g.lastCommand) r.lastCommand = g.lastCommand;
  if (g.nextCheckAt) r.nextCheckAt = g.nextCheckAt;
  return r;
}

/**
 * The plan's line ends with what the gate will do (`→ Pass: skip to wave 2`); once the pass did it,
 * the rollout is already on the next wave, so the line says it was done.
 */
function doneLine(g: GateReport): string {
  const done = {
    'skip-wave': g.wave >= g.waveCount ? '→ Pass: completed the rollout' : `→ Pass: skipped to wave ${g.wave + 1}`,
    stop: '→ Fail: stopped and held',
    hold: '→ Fail: held (no call)',
    none: '',
  }[g.action];
  const at = g.line.lastIndexOf('→ ');
  return at < 0 ? `${g.line} ${done}` : `${g.line.slice(0, at)}${done}`;
}

const VERDICTS = ['Pass', 'Fail', 'Inconclusive', 'Held', 'Unknown'] as const;

export class RolloutTracker {
  /** Commands already reported (by time and action), seeded from the first pass so a restart repeats none. */
  private seen: Set<string> | null = null;

  constructor(
    private readonly status: StatusTracker,
    private readonly metrics: AgentMetrics,
  ) {}

  /**
   * Records one pass's gates and the commands it carried out. Returns the local delay (ms) until a
   * gate may change its verdict, or null.
   */
  pass(
    gates: readonly GateReport[],
    outcomes: readonly ObjectOutcome[],
    revision: string | null,
    commands: readonly CarriedCommand[] = [],
  ): number | null {
    const { status, metrics } = this;
    const done = new Map(outcomes.map((o) => [o.key, o.outcome !== 'failed' && o.outcome !== 'skipped']));
    status.status.gates = gates.map((g) => rolloutStatus(g, done.get(g.key) === true));
    // The board's rows (built from the live state by the pass observer) carry their gate too.
    const byKey = new Map(status.status.gates.map((g) => [g.deployment, g]));
    for (const r of status.status.rollouts) {
      const g = byKey.get(r.deployment);
      if (g) r.promotion = g;
      else delete r.promotion;
    }
    metrics.waveSuccessRatio.reset();
    metrics.gateVerdict.reset();
    const first = this.seen === null;
    const seen = (this.seen ??= new Set());
    // Carried out by this process this pass: told now, also on its first pass, and never again when
    // a later gate report names it as its last command.
    for (const { key, entry: c } of commands) {
      if (seen.has(`${key}|${c.at}|${c.action}`)) continue;
      seen.add(`${key}|${c.at}|${c.action}`);
      this.told(key, c, gates.find((g) => g.key === key)?.waveCount, revision);
    }
    let next: number | null = null;
    for (const g of gates) {
      // Whether the gate's action landed this pass is decided once, by rolloutStatus (a window-held skip did not).
      const r = rolloutStatus(g, done.get(g.key) === true);
      for (const v of VERDICTS) metrics.gateVerdict.set({ deployment: g.key, verdict: v }, v === r.verdict ? 1 : 0);
      for (const t of g.tenants)
        if (t.successRate !== null)
          metrics.waveSuccessRatio.set({ deployment: g.key, wave: String(g.wave), tenant: t.name }, t.successRate);
      // The event's identity includes the wave: the same verdict on the next wave is a new event. A
      // hold is identified by the wave it was held on, an advance by the wave it started (as the
      // board's ungated WaveAdvanced is), so a promote and a gate's advance never share one.
      const event = (reason: EventReason, message: string, wave = g.wave): void => {
        status.event({ reason, object: g.key, message, revision, wave });
      };
      if (g.held)
        event(
          'GateHeld',
          `held on wave ${g.held.wave}/${g.waveCount}${g.held.stopped ? ' (stopped)' : ' (no call)'}: ${g.held.reason}`,
          g.held.wave,
        );
      if (r.carriedOut) {
        metrics.gateActions.inc({ action: g.action });
        if (g.action === 'skip-wave') {
          if (g.wave >= g.waveCount)
            event('RolloutCompleted', `completed after wave ${g.wave}/${g.waveCount} passed its gate: ${g.reason}`, g.waveCount);
          else event('WaveAdvanced', `wave ${g.wave} → ${g.wave + 1} of ${g.waveCount}: ${g.reason}`, g.wave + 1);
        } else {
          event('GateFailed', `wave ${g.wave}/${g.waveCount}: ${g.reason}`);
          event('GateHeld', `held on wave ${g.wave}/${g.waveCount}${g.action === 'stop' ? ' (stopped)' : ' (no call)'}: ${g.reason}`);
        }
      }
      const c = g.lastCommand;
      if (c && !seen.has(`${g.key}|${c.at}|${c.action}`)) {
        seen.add(`${g.key}|${c.at}|${c.action}`);
        if (!first) this.told(g.key, c, g.waveCount, revision);
      }
      // Service-clock times: the delay is measured on the service's clock, then waited locally.
      if (g.nextCheckAt) {
        const delay = Date.parse(g.nextCheckAt) - Date.parse(g.at);
        if (delay >= 0 && (next === null || delay < next)) next = delay;
      }
    }
    const held = status.status.gates.filter((r) => r.held).map((r) => r.deployment);
    const failed = status.status.rollouts.filter((r) => r.status === 'Failed').map((r) => r.deployment);
    status.rolloutHealth(held, failed);
    metrics.rolloutsHalted.set(new Set([...held, ...failed]).size);
    return next;
  }

  /** The event (and gate action count) of a promote or resume by a person. */
  private told(key: string, c: GateLogEntry, gateWaveCount: number | undefined, revision: string | null): void {
    this.metrics.gateActions.inc({ action: c.action });
    // A promote that completes the rollout has no gate report after it: the count is in its log entry.
    const waveCount = c.waveCount ?? gateWaveCount;
    const of = waveCount === undefined ? '' : ` of ${waveCount}`;
    if (c.action === 'promote' && waveCount !== undefined && c.wave >= waveCount)
      // The last wave skipped: the rollout completed, as the command itself says (regression: "wave 3 → 4").
      this.status.event({
        reason: 'RolloutCompleted',
        object: key,
        message: `completed: wave ${c.wave}/${waveCount} skipped by packsync promote: ${c.reason}`,
        revision,
        wave: waveCount,
      });
    else if (c.action === 'promote')
      this.status.event({
        reason: 'WaveAdvanced',
        object: key,
        message: `wave ${c.wave} → ${c.wave + 1}${of} by packsync promote: ${c.reason}`,
        revision,
        wave: c.wave + 1,
      });
    else if (c.action === 'ignore-windows')
      // Break glass (docs/policy.md): who moved it through a closed change window, and why.
      this.status.event({
        reason: 'WindowIgnored',
        object: key,
        message: `moved outside its change window by ${c.reason}`,
        revision,
        wave: c.wave,
      });
    else if (c.action === 'resume')
      this.status.event({
        reason: 'Recovered',
        object: key,
        message: `hold on wave ${c.wave} released by packsync resume: ${c.reason}`,
        revision,
        wave: c.wave,
      });
  }

  /**
   * A pass that failed before judging (e.g. the live read failed): the last verdicts are no longer
   * known, so every gate says `Unknown` rather than a stale verdict (holds stand: they are state).
   */
  passFailed(message: string): void {
    const { status, metrics } = this;
    for (const r of status.status.gates) {
      if (r.verdict === 'Held') continue;
      r.verdict = 'Unknown';
      r.reason = `not judged: the last pass failed (${message})`;
      for (const v of VERDICTS) metrics.gateVerdict.set({ deployment: r.deployment, verdict: v }, v === 'Unknown' ? 1 : 0);
    }
  }
}
