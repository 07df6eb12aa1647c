/**
 * An owned deployment that exists live, reconciled in place: its state (start, stop, drift and
 * what cannot be healed), the manual wave gate, and contentRevision; and how identity changes that
 * are already true live are recognised.
 */
import type { V1DeploymentViewModel } from '../api/wire-types.js';
import type { DeploymentManifest, DeploymentState } from '../manifests/model.js';
import type { InventoryEntry } from '../state/inventory-types.js';
import type { PlanContext } from './context.js';
import type { Change, DriftHandling, ObjectPlan } from './types.js';
import { pastGateReason } from './wave-gate.js';

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
  live: V1DeploymentViewModel,
  entry: InventoryEntry,
  deps: string[],
): Reconciled {
  const ref = { id: live.id };
  const out: Reconciled = { change: 'none', reasons: [], fields: [], actions: [] };
  let prev: string[] = deps;
  const write = (op: 'start' | 'stop' | 'skip-wave' | 'update-content', description: string, untilWave = 0): void => {
    const id =
      op === 'skip-wave'
        ? ctx.action(key, { op, dependsOn: prev, description, deploymentRef: ref, untilWave })
        : ctx.action(key, { op, dependsOn: prev, description, deploymentRef: ref });
    out.actions.push(id);
    prev = [id];
  };
  // The agent holds healing of an object it healed moments ago (per-object backoff, design §4a), so
  // a fight with someone in the web console cannot become a loop: held drift is only reported.
  const held = ctx.options.driftHold?.includes(key) === true;
  const heal = ctx.options.drift === 'heal' && !held;
  const policy = held ? 'heal held by backoff' : ctx.options.drift;
  let drifted = false;
  let unhealable = false;

  if (entry.hold && state === 'running' && (live.status === 'NotStarted' || live.status === 'Stopped')) {
    // Held by a failed promotion gate: never started again by packsync, not even to heal drift,
    // until `packsync resume` releases it (design §3).
    out.reasons.push(
      `held by its promotion gate (wave ${entry.hold.wave}): ${entry.hold.reason}; \`packsync resume ${key} --reason ...\` releases it`,
    );
  } else if (state === 'running' && (live.status === 'NotStarted' || live.status === 'Stopped')) {
    if (live.status === 'Stopped' && entry.appliedState === 'running') {
      drifted = true;
      out.reasons.push(`stopped outside packsync while git says running (drift: ${policy})`);
      if (heal) write('start', 'start again (heal drift)');
    } else {
      out.fields.push({ field: 'state', from: statusAsState(live), to: 'running' });
      write('start', 'start');
    }
  } else if (state === 'stopped' && live.status === 'Running') {
    if (entry.appliedState === 'stopped') {
      drifted = true;
      out.reasons.push(`started outside packsync while git says stopped (drift: ${policy})`);
      if (heal) write('stop', 'stop again (heal drift)');
    } else {
      out.fields.push({ field: 'state', from: 'running', to: 'stopped' });
      write('stop', 'stop');
    }
  } else if (state === 'pending' && live.status !== 'NotStarted') {
    // Drift no call can heal: the API cannot un-start a deployment. Reported on every pass (never
    // shown as a change, never forgotten) until git says running or stopped.
    unhealable = true;
    out.reasons.push(
      `is ${live.status} (wave ${live.currentWave}/${live.waveCount}) while git says pending: started outside git; a started deployment cannot return to pending, so set state: running or stopped`,
    );
  }

  const willRun = state === 'running' && (live.status === 'Running' || out.actions.length > 0);
  const gate = m.spec.wave;
  if (gate !== undefined && willRun) {
    const current = Math.max(live.currentWave, 1);
    const target = live.waveCount > 0 ? Math.min(gate, live.waveCount) : gate;
    if (current < target) {
      out.fields.push({ field: 'wave', from: current, to: target });
      for (let w = current; w < target; w++) write('skip-wave', `skip wave ${w} → ${w + 1}`, w + 1);
    }
    const past = pastGateReason(gate, live);
    if (past) out.reasons.push(past);
  }

  const wantRev = m.spec.contentRevision;
  if (wantRev !== undefined && entry.contentRevision !== wantRev) {
    if (live.status === 'NotStarted') {
      out.reasons.push('contentRevision recorded: content is fresh until the deployment starts');
    } else if (live.contentUpdateStatus === 'Running') {
      out.reasons.push('a content update is already running');
    } else {
      out.fields.push({ field: 'contentRevision', from: entry.contentRevision ?? null, to: wantRev });
      write('update-content', `update content (revision ${wantRev})`);
    }
  }

  if (drifted) out.drift = held ? 'held' : heal ? 'healed' : 'reported';
  if (unhealable && out.actions.length === 0) {
    out.drift = 'reported';
    out.change = 'drift';
    return out;
  }
  if (drifted && !heal) {
    // Report only: keep the recorded state so the drift stays visible on every pass.
    out.change = 'drift';
    return out;
  }
  // A hold keeps the applied state the gate recorded, so releasing it makes the start a change.
  const updated: InventoryEntry = { ...entry, appliedState: entry.hold ? (entry.appliedState ?? state) : state };
  if (wantRev !== undefined && (out.actions.some((a) => a.endsWith(':update-content')) || live.status === 'NotStarted')) {
    updated.contentRevision = wantRev;
  }
  if (out.actions.length > 0 || updated.appliedState !== entry.appliedState || updated.contentRevision !== entry.contentRevision) {
    const rec = ctx.action(key, {
      op: 'record',
      dependsOn: prev,
      description: 'record applied state',
      entry: { ...updated, updatedAt: ctx.timestamp() },
      resolvesIntent: false,
    });
    out.actions.push(rec);
  }
  if (out.actions.length > 0) out.change = 'update';
  return out;
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

export function statusAsState(live: V1DeploymentViewModel): DeploymentState {
  if (live.status === 'NotStarted') return 'pending';
  if (live.status === 'Stopped') return 'stopped';
  return 'running';
}
