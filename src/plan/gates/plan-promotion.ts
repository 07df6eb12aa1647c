/**
 * The planner's side of promotion gates: turns a gate evaluation (promotion.ts) into plan actions
 * for one owned, running deployment. Pass → one skip-wave; Fail → stop (or nothing for
 * `onFailure: hold`) and a durable hold; a wave seen for the first time → its soak clock, kept as
 * quiet bookkeeping. Called from plan-deployments.ts through two small hooks.
 */
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { V1DeploymentViewModel } from '../../api/wire/index.js';
import type { DeploymentManifest } from '../../manifests/model.js';
import { promotionRules } from '../../manifests/promotion-values.js';
import type { PlanContext } from '../context.js';
import { evaluateGate } from './promotion.js';
import type { Change, FieldChange, GateStateChange } from '../types.js';
import type { ErrorCode } from '../../util/errors.js';
import { OP } from '../ops.js';
import { breakGlassAction, breakGlassLine, gateForward } from '../windows/window-gate.js';

/** The parts of a deployment's planned object the gate may add to. */
export interface GateTarget {
  change: Change;
  reasons: string[];
  fields: FieldChange[];
  actions: string[];
}

/**
 * `toWave` beyond the flow's wave count is a plan error at the value's position. Only known when
 * the flow exists live (a new flow's patch group waves cannot be listed before it is created).
 */
export function promotionTargetError(
  ctx: PlanContext,
  m: DeploymentManifest,
  flowId: string | undefined,
): { code: ErrorCode; message: string } | undefined {
  const toWave = m.spec.promotion?.toWave;
  // Most deployments name no toWave: no lookup of their flow (15,000 a pass at fleet scale).
  if (toWave === undefined) return undefined;
  const waves = flowId ? ctx.flowsById.get(flowId)?.details?.waves.length : undefined;
  if (waves === undefined || toWave <= waves) return undefined;
  return { code: 'PROMOTION_TO_WAVE', message: `spec.promotion.toWave ${toWave} is beyond the ${waves} wave(s) of flow ${m.spec.flow}` };
}

/** Adds the gate's actions to `t`; returns an object error when the live read failed. */
export function planGate(
  ctx: PlanContext,
  key: string,
  m: DeploymentManifest,
  found: { live: V1DeploymentViewModel; entry: InventoryEntry },
  t: GateTarget,
): { code: ErrorCode; message: string } | undefined {
  const { live, entry } = found;
  const spec = m.spec.promotion;
  if (!spec || (m.spec.state ?? 'running') !== 'running') return undefined;
  const now = ctx.live.serviceTime ? new Date(ctx.live.serviceTime) : ctx.now;
  const input = {
    key,
    rules: promotionRules(spec),
    live,
    waves: ctx.flowsById.get(live.flowId)?.details?.waves ?? [],
    tenants: ctx.live.tenants,
    read: ctx.live.waveLive?.[live.id],
    record: entry.promotion,
    hold: entry.hold,
    now,
  };
  const lastCommand = entry.gateLog?.findLast((l) => l.by === 'command');
  if (entry.hold) {
    const held = evaluateGate(input).report;
    if (lastCommand) held.lastCommand = lastCommand;
    ctx.gates.push(held);
    return undefined;
  }
  // Only a deployment that runs and that this pass leaves running is judged.
  if (live.status !== 'Running' || t.change === 'drift' || t.change === 'error') return undefined;
  const { report, clock } = evaluateGate(input);
  if (lastCommand) report.lastCommand = lastCommand;
  ctx.gates.push(report);
  const wave = live.currentWave;
  const window = report.action === 'skip-wave' ? gateForward(ctx, key, m, [`skip wave ${wave} (promotion gate passed)`]) : {};
  if (window.hold !== undefined) {
    // The gate passed, but the window is closed: the skip waits; the next pass in the window judges again.
    t.reasons.push(`promotion gate passed on wave ${wave}/${live.waveCount}: ${report.reason}; the skip ${window.hold}`);
    // The report says so too: the agent must not tell the advance (WaveAdvanced, carriedOut) that did not happen.
    report.windowHeld = window.hold;
    report.line = `${report.line}; the skip ${window.hold}`;
    if (t.actions.length === 0) t.change = 'waiting';
    return undefined;
  }
  const c: Chain = { ctx, key, t, prev: t.actions.slice(-1), at: now.toISOString() };
  if (report.action === 'skip-wave') planSkip(c, live, report.reason, window.breakGlass);
  else if (report.action === 'stop' || report.action === 'hold')
    planHold(c, live, { reason: report.reason, stop: report.action === 'stop', clock });
  else if (clock) chain(c, { op: OP.gate, description: `start the soak of wave ${wave}`, set: { promotion: clock }, quiet: true });
  return report.readError
    ? { code: 'GATE_READ_FAILED', message: `${report.readError.code}: live data of wave ${wave} could not be read; no verdict this pass` }
    : undefined;
}

/** The gate's writes, each after the one before (and after what the deployment's own plan did). */
interface Chain {
  ctx: PlanContext;
  key: string;
  t: GateTarget;
  prev: string[];
  /** The pass's time, as the gate records it. */
  at: string;
}

type ChainedAction = Parameters<PlanContext['action']>[1] extends infer A ? (A extends unknown ? Omit<A, 'dependsOn'> : never) : never;

function chain(c: Chain, a: ChainedAction): string {
  // The key order of the actions as they were written out before (op, dependsOn, the rest): saved plans and JSON read the same.
  const { op, ...rest } = a;
  const id = c.ctx.action(c.key, { op, dependsOn: c.prev, ...rest } as Parameters<PlanContext['action']>[1]);
  c.t.actions.push(id);
  c.prev = [id];
  return id;
}

/** Pass: skip to the next wave (or complete the rollout past the last), and record the promotion. */
function planSkip(
  c: Chain,
  live: V1DeploymentViewModel,
  reason: string,
  breakGlass: Parameters<typeof breakGlassLine>[0] | undefined,
): void {
  const { t, at } = c;
  const wave = live.currentWave;
  const last = wave >= live.waveCount;
  chain(c, {
    op: OP.skipWave,
    description: last
      ? `complete the rollout: skip the last wave ${wave} (promotion gate passed)`
      : `skip wave ${wave} → ${wave + 1} (promotion gate passed)`,
    deploymentRef: { id: live.id },
    untilWave: wave + 1,
  });
  chain(c, {
    op: OP.gate,
    // Past the last wave there is no wave to promote to: the record keeps wave n+1 as the end.
    description: last
      ? `record the completed rollout (wave ${wave}/${live.waveCount} was the last)`
      : `record the promotion to wave ${wave + 1}`,
    set: { promotion: { deploymentId: live.id, wave: wave + 1, since: at }, log: { at, action: 'skip-wave', wave, by: 'gate', reason } },
    quiet: false,
  });
  t.fields.push({ field: 'wave', from: wave, to: last ? 'completed' : wave + 1 });
  t.reasons.push(`promotion gate passed on wave ${wave}/${live.waveCount}: ${reason}`);
  if (breakGlass) {
    t.reasons.push(breakGlassLine(breakGlass));
    t.actions.push(breakGlassAction(c.ctx, c.key, c.prev, breakGlass, wave));
  }
  t.change = 'update';
}

/** Fail: stop the deployment (`onFailure: stop`) or only hold it, and record the hold. */
function planHold(
  c: Chain,
  live: V1DeploymentViewModel,
  v: { reason: string; stop: boolean; clock: GateStateChange['promotion'] | undefined },
): void {
  const { t, at } = c;
  const wave = live.currentWave;
  if (v.stop) {
    chain(c, { op: OP.stop, description: `stop (promotion gate failed on wave ${wave})`, deploymentRef: { id: live.id } });
    t.fields.push({ field: 'state', from: 'running', to: 'stopped (held)' });
  }
  const hold = { at, deploymentId: live.id, wave, reason: v.reason, stopped: v.stop };
  // A stopped hold records `stopped` as applied: after `resume` the start is a change, not drift.
  chain(c, {
    op: OP.gate,
    description: `hold the deployment (promotion gate failed on wave ${wave}); \`packsync resume ${c.key}\` releases it`,
    set: {
      hold,
      ...(v.clock ? { promotion: v.clock } : {}),
      ...(v.stop ? { appliedState: 'stopped' } : {}),
      log: { at, action: v.stop ? 'stop' : 'hold', wave, by: 'gate', reason: v.reason },
    },
    quiet: false,
  });
  t.reasons.push(`promotion gate failed on wave ${wave}/${live.waveCount}: ${v.reason}`);
  t.change = 'update';
}
