/**
 * Prometheus metrics on an agent-owned registry (never prom-client's global one, so two agents in
 * one process, as in tests, do not collide).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface AgentMetrics {
  registry: Registry;
  reconcileDuration: Histogram<'result'>;
  passes: Counter<'result'>;
  objects: Gauge<'kind' | 'outcome'>;
  apiRequests: Counter<'operation' | 'code'>;
  apiDuration: Histogram<'operation'>;
  drift: Counter<'kind'>;
  lastApplied: Gauge;
  ready: Gauge;
  sourceVerification: Counter<'result'>;
  driftedObjects: Gauge;
  orphanedObjects: Gauge;
  rolloutsHalted: Gauge;
  notifications: Counter<'provider' | 'reason' | 'result'>;
  waveSuccessRatio: Gauge<'deployment' | 'wave' | 'tenant'>;
  gateVerdict: Gauge<'deployment' | 'verdict'>;
  gateActions: Counter<'action'>;
  rolloutWave: Gauge<'deployment' | 'flow'>;
  rolloutSuccessRatio: Gauge<'deployment' | 'flow'>;
}

/** Most rollout series exported (one per deployment on the board, then per service-started one): bounded cardinality whatever the fleet. */
export const ROLLOUT_SERIES_LIMIT = 500;

export function createMetrics(withProcess = true): AgentMetrics {
  const registry = new Registry();
  if (withProcess) collectDefaultMetrics({ register: registry, prefix: 'packsync_' });
  const registers = [registry];
  return { registry, ...passMetrics(registers), ...rolloutMetrics(registers), ...attentionMetrics(registers) };
}

type Registers = Registry[];

/** Passes, objects and API calls: what each reconcile pass did. */
function passMetrics(
  registers: Registers,
): Pick<
  AgentMetrics,
  | 'reconcileDuration'
  | 'passes'
  | 'objects'
  | 'apiRequests'
  | 'apiDuration'
  | 'drift'
  | 'lastApplied'
  | 'ready'
  | 'sourceVerification'
  | 'notifications'
> {
  return {
    reconcileDuration: new Histogram({
      name: 'packsync_reconcile_duration_seconds',
      help: 'Duration of reconcile passes (source sync, validate, read, plan, apply)',
      labelNames: ['result'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    passes: new Counter({ name: 'packsync_reconcile_passes_total', help: 'Reconcile passes by result', labelNames: ['result'], registers }),
    objects: new Gauge({
      name: 'packsync_objects',
      help: 'Managed objects by kind and outcome of the last pass',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    apiRequests: new Counter({
      name: 'packsync_api_requests_total',
      help: 'API requests by operation and HTTP status code (0 = no response)',
      labelNames: ['operation', 'code'],
      registers,
    }),
    apiDuration: new Histogram({
      name: 'packsync_api_request_duration_seconds',
      help: 'API request duration by operation',
      labelNames: ['operation'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    drift: new Counter({
      name: 'packsync_drift_detected_total',
      help: 'Objects found changed outside packsync',
      labelNames: ['kind'],
      registers,
    }),
    lastApplied: new Gauge({ name: 'packsync_last_applied_timestamp_seconds', help: 'Unix time of the last successful pass', registers }),
    ready: new Gauge({
      name: 'packsync_ready',
      help: '1 when the agent can do its job (loop alive, a pass started or completed recently); sync health is in the conditions',
      registers,
    }),
    sourceVerification: new Counter({
      name: 'packsync_source_verification_total',
      help: 'Signature verifications of new source revisions by result (verified, failed)',
      labelNames: ['result'],
      registers,
    }),
    notifications: new Counter({
      name: 'packsync_notifications_total',
      help: 'Notification deliveries by provider, event reason and result (sent, failed, skipped)',
      labelNames: ['provider', 'reason', 'result'],
      registers,
    }),
  };
}

/** Promotion gates and rollouts: where each one stands, from the last pass. */
function rolloutMetrics(
  registers: Registers,
): Pick<AgentMetrics, 'waveSuccessRatio' | 'gateVerdict' | 'gateActions' | 'rolloutWave' | 'rolloutSuccessRatio'> {
  return {
    waveSuccessRatio: new Gauge({
      name: 'packsync_wave_success_ratio',
      help: 'Promotion gates: installed / (installed + failed) of the current wave per tenant, from the last pass',
      labelNames: ['deployment', 'wave', 'tenant'],
      registers,
    }),
    gateVerdict: new Gauge({
      name: 'packsync_gate_verdict',
      help: 'Promotion gates: 1 for the verdict of the last pass (Pass, Fail, Inconclusive, Held, Unknown), else 0',
      labelNames: ['deployment', 'verdict'],
      registers,
    }),
    gateActions: new Counter({
      name: 'packsync_gate_actions_total',
      help: 'Promotion gate actions taken (skip-wave, stop, hold) and commands seen (promote, resume)',
      labelNames: ['action'],
      registers,
    }),
    rolloutWave: new Gauge({
      name: 'packsync_rollout_wave',
      help: 'Current wave of each managed rollout on the board and each one the service started in an owned flow (deployment Flow/NAME@VERSION) (0 before start; the wave count once completed), from the last pass',
      labelNames: ['deployment', 'flow'],
      registers,
    }),
    rolloutSuccessRatio: new Gauge({
      name: 'packsync_rollout_success_ratio',
      help: "installed / (installed + failed) of the current wave of each running rollout (git's, or the service's as Flow/NAME@VERSION), when its live data was read",
      labelNames: ['deployment', 'flow'],
      registers,
    }),
  };
}

/** What needs attention: drifted, orphaned and halted objects, as of the last pass. */
function attentionMetrics(registers: Registers): Pick<AgentMetrics, 'driftedObjects' | 'orphanedObjects' | 'rolloutsHalted'> {
  return {
    driftedObjects: new Gauge({
      name: 'packsync_drifted_objects',
      help: 'Objects changed outside packsync and not healed by the last pass (reported or held)',
      registers,
    }),
    orphanedObjects: new Gauge({
      name: 'packsync_orphaned_objects',
      help: 'Owned objects that exist live while their manifest left git, as of the last pass (they require pruning)',
      registers,
    }),
    rolloutsHalted: new Gauge({
      name: 'packsync_rollouts_halted',
      help: 'Deployments held by their promotion gate or reported Failed by the service, as of the last pass',
      registers,
    }),
  };
}
