/**
 * An owned deployment that exists live, reconciled in place: the decisions of
 * deployment-decisions.ts (state, wave gate, contentRevision) become actions, in that order; and
 * how identity changes that are already true live are recognised.
 */
import type { V1DeploymentViewModel } from '../../api/wire/index.js';
import type { DeploymentManifest, DeploymentState } from '../../manifests/model.js';
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { PlanContext } from '../context.js';
import {
  appliedEntry,
  decideContent,
  decideState,
  decideWave,
  driftPolicy,
  needsRecord,
  settle,
  statusAsState,
  willRun,
} from './deployment-decisions.js';
import { breakGlassAction, breakGlassLine, FORWARD_OPS, gateForward, windowsOf } from '../windows/window-gate.js';
import { hashValue } from '../hash.js';
import type { Step } from './deployment-decisions.js';
import { OP } from '../ops.js';
import { recordAction } from '../state-writes.js';
import type { Change, DriftHandling, ObjectPlan } from '../types.js';

export interface Reconciled {
  change: Change;
  reasons: string[];
  fields: ObjectPlan['fields'];
  actions: string[];
  drift?: DriftHandling;
}

export function reconcileExisting(
  ctx: PlanContext,
  key: string,
  m: DeploymentManifest,
  state: DeploymentState,
  found: { live: V1DeploymentViewModel; entry: InventoryEntry; deps: string[] },
): Reconciled {
  const { live, entry, deps } = found;
  const out: Reconciled = { change: 'none', reasons: [], fields: [], actions: [] };
  const ref = { id: live.id };
  let prev: string[] = deps;
  // Each decision's writes run in a chain after the ones before them.
  const take = (step: Step): void => {
    out.reasons.push(...step.reasons);
    out.fields.push(...step.fields);
    for (const w of step.writes) {
      const id =
        w.op === OP.skipWave
          ? ctx.action(key, { op: w.op, dependsOn: prev, description: w.description, deploymentRef: ref, untilWave: w.untilWave })
          : ctx.action(key, { op: w.op, dependsOn: prev, description: w.description, deploymentRef: ref });
      out.actions.push(id);
      prev = [id];
    }
  };

  const policy = driftPolicy(ctx.options, key);
  let decision = decideState(key, state, live, entry, policy);
  const wave = decideWave(m.spec.wave, willRun(state, live, decision), live);
  const content = decideContent(m.spec.contentRevision, entry.contentRevision, live);
  // Change windows (docs/policy.md): forward moves wait for the window; a stop never does.
  const window = gateForward(ctx, key, m, forwardMoves(decision, wave, content));
  const heldStart = window.hold !== undefined && decision.writes.some((w) => FORWARD_OPS.has(w.op));
  if (window.hold !== undefined) {
    // Only steps that ask for a forward move are rewritten: a step that asks for nothing is shared.
    for (const step of [decision, wave, content])
      if (step.writes.some((w) => FORWARD_OPS.has(w.op))) step.writes = step.writes.filter((w) => !FORWARD_OPS.has(w.op));
    if (heldStart) decision = { kind: 'none', reasons: decision.reasons, fields: decision.fields, writes: [] };
    out.reasons.push(window.hold);
  }
  take(decision);
  take(wave);
  take(content);

  const wrote = out.actions.length > 0;
  const waits = window.hold !== undefined && !wrote;
  const end = settle(decision, policy, wrote);
  if (end.drift) out.drift = end.drift;
  if (end.reportOnly) {
    out.change = 'drift';
    // A new contentRevision is git's change, not drift: its update runs, and is recorded, even while
    // the state drift is only reported (regression: update-content was planned again every pass).
    if (content.writes.length > 0 && m.spec.contentRevision !== undefined)
      out.actions.push(recordAction(ctx, key, prev, 'record content revision', { ...entry, contentRevision: m.spec.contentRevision }));
    return out;
  }
  // A held start leaves the applied state as it was, so the start is still a change when the window opens.
  const applied = heldStart ? ((entry.appliedState as DeploymentState | undefined) ?? statusAsState(live)) : state;
  const updated = appliedEntry(entry, applied, m.spec.contentRevision, content.writes.length > 0, live);
  // The windows in force are kept in the state for `promote` (docs/policy.md); a change of them alone is recorded too.
  const windows = windowsOf(ctx, m);
  if (windows) updated.windows = windows;
  else delete updated.windows;
  if (needsRecord(entry, updated, wrote) || windowsMoved(entry.windows, updated.windows)) {
    out.actions.push(recordAction(ctx, key, prev, 'record applied state', updated));
    out.change = 'update';
  } else if (waits) out.change = 'waiting';
  // Recorded after the object's own record, which would otherwise write over the gate log.
  if (window.breakGlass && wrote) {
    out.reasons.push(breakGlassLine(window.breakGlass));
    out.actions.push(breakGlassAction(ctx, key, out.actions.slice(-1), window.breakGlass, live.currentWave));
  }
  return out;
}

/** Descriptions of the forward moves the decisions ask for (what a closed window would hold back). */
function forwardMoves(state: Step, wave: Step, content: Step): string[] {
  if (state.writes.length + wave.writes.length + content.writes.length === 0) return NO_MOVES;
  return [...state.writes, ...wave.writes, ...content.writes].filter((w) => FORWARD_OPS.has(w.op)).map((w) => w.description);
}

/** Most deployments ask for no move: one shared, frozen empty list for them. */
const NO_MOVES: string[] = Object.freeze([]) as unknown as string[];

/** Whether the windows in force differ from those recorded (hashed only when there are any: most deployments have none). */
function windowsMoved(recorded: unknown, now: unknown): boolean {
  if (recorded === undefined && now === undefined) return false;
  return hashValue(recorded ?? null) !== hashValue(now ?? null);
}

/**
 * When the recorded identity differs from git's only in `version` and the live deployment already
 * has the version git names (or, with none named, its package's version, which is what an add
 * without a version gives), returns the reason line; nothing needs replacing. Undefined otherwise.
 */
export function versionAlreadyLive(
  ctx: PlanContext,
  entry: InventoryEntry,
  identity: { flow: string; package: string; version: string | null },
  live: V1DeploymentViewModel,
): string | undefined {
  const was = entry.spec as { flow?: unknown; package?: unknown; version?: unknown } | null | undefined;
  // The live deployment was found by the live ids of its flow and package, so names that differ are
  // renamed references (a Flow or Package moved to a new key), not another deployment.
  const renamed = was?.flow !== identity.flow || was?.package !== identity.package;
  if (renamed && (was?.version ?? null) === identity.version) {
    return `flow or package renamed in git (${String(was?.flow)}/${String(was?.package)} → ${identity.flow}/${identity.package}); the live deployment is the same: recorded in the state, no API call`;
  }
  if (identity.version !== null) {
    return identity.version === live.version
      ? `version "${live.version}" is already the live deployment's version: recorded in the state, no API call`
      : undefined;
  }
  const packageVersion = ctx.packagesById.get(live.packageId)?.productVersion;
  return packageVersion !== undefined && packageVersion === live.version
    ? `version left out: the live deployment has its package's version "${live.version}", as an add without a version would: recorded in the state, no API call`
    : undefined;
}
