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
  const waves = flowId ? ctx.flowsById.get(flowId)?.details?.waves.length : undefined;
  if (toWave === undefined || waves === undefined || toWave <= waves) return undefined;
  return { code: 'PROMOTION_TO_WAVE', message: `spec.promotion.toWave ${toWave} is beyond the ${waves} wave(s) of flow ${m.spec.flow}` };
}

/** Adds the gate's actions to `t`; returns an object error when the live read failed. */
export function planGate(
  ctx: PlanContext,
  key: string,
  m: DeploymentManifest,
  live: V1DeploymentViewModel,
  entry: InventoryEntry,
  t: GateTarget,
): { code: ErrorCode; message: string } | undefined {
  const spec = m.spec.promotion;
  if (!spec || (m.spec.state ?? 'running') !== 'running') return undefined;
  const now = ctx.live.serviceTime ? new Date(ctx.live.serviceTime) : ctx.now;
  const rules = promotionRules(spec);
  const input = {
    key,
    rules,
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
  const at = now.toISOString();
  let prev = t.actions.slice(-1);
  const gate = (set: GateStateChange, quiet: boolean, description: string): void => {
    const id = ctx.action(key, { op: OP.gate, dependsOn: prev, description, set, quiet });
    t.actions.push(id);
    prev = [id];
  };
  const wave = live.currentWave;
  const window = report.action === 'skip-wave' ? gateForward(ctx, key, m, [`skip wave ${wave} (promotion gate passed)`]) : {};
  if (window.hold !== undefined) {
    // The gate passed, but the window is closed: the skip waits; the next pass in the window judges again.
    t.reasons.push(`promotion gate passed on wave ${wave}/${live.waveCount}: ${report.reason}; the skip ${window.hold}`);
    if (t.actions.length === 0) t.change = 'waiting';
    return undefined;
  }
  switch (report.action) {
    case 'skip-wave': {
      const last = wave >= live.waveCount;
      const skip = ctx.action(key, {
        op: OP.skipWave,
        dependsOn: prev,
        description: last
          ? `complete the rollout: skip the last wave ${wave} (promotion gate passed)`
          : `skip wave ${wave} → ${wave + 1} (promotion gate passed)`,
        deploymentRef: { id: live.id },
        untilWave: wave + 1,
      });
      t.actions.push(skip);
      prev = [skip];
      gate(
        {
          promotion: { deploymentId: live.id, wave: wave + 1, since: at },
          log: { at, action: 'skip-wave', wave, by: 'gate', reason: report.reason },
        },
        false,
        // Past the last wave there is no wave to promote to: the record keeps wave n+1 as the end.
        last ? `record the completed rollout (wave ${wave}/${live.waveCount} was the last)` : `record the promotion to wave ${wave + 1}`,
      );
      t.fields.push({ field: 'wave', from: wave, to: last ? 'completed' : wave + 1 });
      t.reasons.push(`promotion gate passed on wave ${wave}/${live.waveCount}: ${report.reason}`);
      if (window.breakGlass) {
        t.reasons.push(breakGlassLine(window.breakGlass));
        t.actions.push(breakGlassAction(ctx, key, prev, window.breakGlass));
      }
      t.change = 'update';
      break;
    }
    case 'stop':
    case 'hold': {
      const stop = report.action === 'stop';
      if (stop) {
        const id = ctx.action(key, {
          op: OP.stop,
          dependsOn: prev,
          description: `stop (promotion gate failed on wave ${wave})`,
          deploymentRef: { id: live.id },
        });
        t.actions.push(id);
        prev = [id];
        t.fields.push({ field: 'state', from: 'running', to: 'stopped (held)' });
      }
      const hold = { at, deploymentId: live.id, wave, reason: report.reason, stopped: stop };
      // A stopped hold records `stopped` as applied: after `resume` the start is a change, not drift.
      gate(
        {
          hold,
          ...(clock ? { promotion: clock } : {}),
          ...(stop ? { appliedState: 'stopped' } : {}),
          log: { at, action: stop ? 'stop' : 'hold', wave, by: 'gate', reason: report.reason },
        },
        false,
        `hold the deployment (promotion gate failed on wave ${wave}); \`packsync resume ${key}\` releases it`,
      );
      t.reasons.push(`promotion gate failed on wave ${wave}/${live.waveCount}: ${report.reason}`);
      t.change = 'update';
      break;
    }
    case 'none':
      if (clock) gate({ promotion: clock }, true, `start the soak of wave ${wave}`);
      break;
  }
  return report.readError
    ? { code: 'GATE_READ_FAILED', message: `${report.readError.code}: live data of wave ${wave} could not be read; no verdict this pass` }
    : undefined;
}
