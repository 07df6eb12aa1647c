/**
 * The agent as `packsync run` starts it: source, status, notifications, triggers and the sidecar
 * around one `Agent`. Either one pass (`once`), or a loop until SIGTERM/SIGINT, which stops it
 * gracefully: no new call starts, the call in flight finishes, the inventory is saved.
 */
import type { Logger } from 'pino';
import type { PacksyncApi } from '../api/operations.js';
import type { PlanOptions } from '../plan/types.js';
import type { State } from '../state/open-state.js';
import { startSidecar } from './http/http-server.js';
import type { Sidecar } from './http/http-server.js';
import { Agent } from './loop.js';
import type { AgentMetrics } from './http/metrics.js';
import type { NotificationConfig } from './notify/config.js';
import type { Notifier } from './notify/notifier.js';
import type { NotifyLinks } from './notify/payloads.js';
import { buildSource, isGitUrl, sourceIdentity } from './source/sources.js';
import type { SourceSettings } from './source/sources.js';
import { StatusTracker } from './http/status.js';
import { ApprovalGate } from './approval-gate.js';
import { sourceObject } from './pass-observer.js';
import { loadTrustedKeys } from './source/verify-keys.js';
import type { RolloutPolicy } from '../manifests/policy-file.js';
import { join, resolve } from 'node:path';
import { realpath } from 'node:fs/promises';
import type { PassResult } from './http/status-types.js';
import { Updater } from './updater.js';
import type { UpdateSettings } from './updater.js';
import { intervalTrigger, requestTrigger, scheduleTrigger, watchTrigger } from './triggers.js';
import type { Trigger } from './triggers.js';

export interface AgentRunOptions {
  source: SourceSettings;
  /** The runtime the command built: its state is locked for the agent's lifetime. */
  api: PacksyncApi;
  stateDir: string;
  state: State;
  logger: Logger;
  metrics: AgentMetrics;
  planOptions: PlanOptions;
  concurrency: number;
  readConcurrency?: number | undefined;
  passTimeoutMs: number;
  schedule?: string;
  intervalMs?: number;
  watch: boolean;
  listen?: { host: string; port: number };
  webhookSecret: string | null;
  notifications: NotificationConfig | null;
  /** `--external-url` / `--name`: links and the agent's name in notifications (docs/agent.md#links). */
  links?: NotifyLinks;
  /** One pass, then return its outcome. */
  once: boolean;
  /** `--policy` with approvals, and the `--trusted-keys` directory of the people who may approve (docs/policy.md). */
  approvals?: { policy: RolloutPolicy; trustedKeys: string };
  /** `--update-interval`: the update automation (docs/agent.md "Update automation"). */
  updates?: UpdateSettings;
}

/** The outcome of a single pass (`once`). */
export interface OncePass {
  revision: string | null;
  result: PassResult | undefined;
  message: string | undefined;
  /** Succeeded, and the head was not refused by verification. */
  ok: boolean;
}

/** How a running agent was stopped: Ctrl-C (SIGINT) is an interruption, SIGTERM the orchestrator's normal stop. */
export interface Stopped {
  signal: 'SIGINT' | 'SIGTERM';
}

/** Runs the agent; resolves after a stop signal (with it), or after the single pass with its outcome. */
export async function runAgent(o: AgentRunOptions): Promise<OncePass | Stopped> {
  const { logger, metrics } = o;
  const status = new StatusTracker(sourceIdentity(o.source));
  status.hidePaths(await privatePaths(o));
  const { source, verified, watchDir } = await buildSource(o.source, {
    stateDir: o.stateDir,
    watch: o.watch,
    status,
    metrics,
    logger,
  });
  const approvals = o.approvals ? await approvalGate(o, status) : undefined;
  const notifier = o.notifications ? await startNotifier(o.notifications, o, status) : null;
  const flushNotifications = (): Promise<unknown> =>
    notifier ? Promise.race([notifier.flush(), new Promise((r) => setTimeout(r, 5000).unref())]) : Promise.resolve();
  const agent = new Agent({
    source,
    api: o.api,
    stateDir: o.stateDir,
    state: o.state,
    planOptions: o.planOptions,
    concurrency: o.concurrency,
    readConcurrency: o.readConcurrency,
    logger,
    metrics,
    status,
    passTimeoutMs: o.passTimeoutMs,
    ...(o.intervalMs !== undefined ? { expectedIntervalMs: o.intervalMs } : {}),
    ...(verified ? { sourceReady: () => verified.headVerified } : {}),
    ...(notifier ? { openFailures: notifier.openFailures() } : {}),
    ...(approvals ? { approvals } : {}),
    // One pass and exit: nothing would continue a deferred wait, so `once` waits like apply does.
    ...(o.once ? { waitBudgetMs: Infinity } : {}),
  });
  // In `--once` the pass has run already: an update pushed to the followed ref waits for the next run.
  const updater = o.updates ? updaterOf(o, o.updates, status, (reason) => (o.once ? undefined : agent.trigger(reason))) : null;
  if (o.once) return onePass({ agent, updater, status, verified, flushNotifications });
  const triggers: Trigger[] = [];
  const fire = (reason: string): void => agent.trigger(reason);
  if (o.schedule) triggers.push(scheduleTrigger(o.schedule, fire));
  if (o.intervalMs !== undefined) triggers.push(intervalTrigger(o.intervalMs, fire));
  if (o.watch && watchDir) triggers.push(await watchTrigger(watchDir, fire));
  for (const t of triggers) if (t.nextAt) status.addSchedule(t.nextAt);
  // promote/resume queue requests while this agent holds the state: answer them within a poll (1 s for a
  // directory, 5 s for remote state), not at the next interval.
  triggers.push(requestTrigger(o.state.requests, fire, o.state.requests.pollMs.pending));
  let sidecar: Sidecar | null = null;
  if (o.listen) {
    sidecar = await startSidecar({
      ...o.listen,
      metrics,
      status,
      ready: () => agent.ready(),
      trigger: fire,
      webhookSecret: o.webhookSecret,
      trackedRef: source.ref,
      logger,
    });
    logger.info({ url: sidecar.url }, 'serving / (status page) /healthz /readyz /status /metrics /webhook /reconcile');
  }
  const verifyMode = o.source.verify?.mode;
  logger.info({ source: status.status.source.source, ref: source.ref, ...(verifyMode ? { verifyMode } : {}) }, 'agent started');
  agent.trigger('startup');
  updater?.start();
  const signal = await stopSignal();
  logger.info({ signal }, 'shutting down: no new calls; waiting for the call in flight');
  await Promise.all([...triggers.map((t) => t.stop()), updater?.stop()]);
  await agent.stop();
  await flushNotifications();
  await sidecar?.close();
  return { signal };
}

/** `--once`: the single pass (and one update run), then its outcome. */
async function onePass(p: {
  agent: Agent;
  updater: Updater | null;
  status: StatusTracker;
  verified: Awaited<ReturnType<typeof buildSource>>['verified'];
  flushNotifications: () => Promise<unknown>;
}): Promise<OncePass> {
  const { agent, updater, status, verified, flushNotifications } = p;
  agent.trigger('once');
  await agent.idle();
  // `--once` with `--update-interval`: one update run after the pass (nothing it pushes is applied by it).
  await updater?.runOnce();
  // One pass means one: a failed pass schedules its backoff retry, which would otherwise fire
  // after the result was printed and the lock released (regression: a second pass after --once).
  await agent.stop();
  await flushNotifications();
  const last = status.status.history[0];
  // A directory source has its revision (the digest) only once the pass loaded it.
  const revision = status.status.lastAttemptedRevision ?? last?.revision ?? null;
  if (verified && !verified.headVerified && last?.result === 'Succeeded') {
    // The pass applied the last verified revision, but the head it was run for was refused: the
    // printed result agrees with exit 1 and names the refused revision (regression: "Succeeded").
    const refusal = status.condition('SourceVerified')?.message ?? `revision ${revision ?? '?'} is not applied: refused`;
    const kept = last.revision ? `; the last verified revision ${last.revision} stays applied` : '';
    return { revision, result: 'Failed', message: `${refusal}${kept}`, ok: false };
  }
  return { revision, result: last?.result, message: last?.message, ok: last?.result === 'Succeeded' && (verified?.headVerified ?? true) };
}

/** The two-person rule's gate: its keys are loaded before anything is fetched, so bad keys fail the start. */
async function approvalGate(o: AgentRunOptions, status: StatusTracker): Promise<ApprovalGate> {
  const a = o.approvals!;
  const keys = await loadTrustedKeys({
    dir: resolve(o.source.cwd, a.trustedKeys),
    gnupgHome: join(o.stateDir, 'gnupg-approvals'),
    env: o.source.env,
  });
  return new ApprovalGate({
    policy: a.policy,
    keys,
    stateDir: o.stateDir,
    env: o.source.env,
    status,
    sourceObject: sourceObject(status.status.source.source ?? ''),
  });
}

function updaterOf(o: AgentRunOptions, settings: UpdateSettings, status: StatusTracker, trigger: (reason: string) => void): Updater {
  return new Updater({
    settings,
    source: o.source,
    api: o.api,
    stateDir: o.stateDir,
    state: o.state,
    planOptions: o.planOptions,
    readConcurrency: o.readConcurrency,
    status,
    logger: o.logger,
    trigger,
  });
}

/**
 * Paths `/status` and the page must not show (docs/agent.md, "Status"): files of a checkout are named
 * relative to the repository, the state directory as `$STATE_DIR`. Both the given and the real path
 * (a symlinked temporary directory) are hidden.
 */
async function privatePaths(o: AgentRunOptions): Promise<{ path: string; shownAs: string }[]> {
  const both = async (path: string, shownAs: string): Promise<{ path: string; shownAs: string }[]> => [
    { path, shownAs },
    { path: await realpath(path).catch(() => path), shownAs },
  ];
  const checkouts = ['source', 'update-source', 'verified-tree'].map((d) => join(o.stateDir, d));
  const directory = isGitUrl(o.source.source) ? [] : [resolve(o.source.cwd, o.source.source)];
  const all = await Promise.all([...[...checkouts, ...directory].map((p) => both(p, '')), both(o.stateDir, '$STATE_DIR')]);
  return all.flat();
}

/** Resolves with the first SIGINT or SIGTERM, and stops listening for both. */
function stopSignal(): Promise<Stopped['signal']> {
  return new Promise((resolveStop) => {
    const stop = (signal: Stopped['signal']): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolveStop(signal);
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

/** Notifications listen to the status: every event occurrence, and each pass's start and end. */
async function startNotifier(
  config: NotificationConfig,
  o: Pick<AgentRunOptions, 'stateDir' | 'metrics' | 'logger' | 'links'>,
  status: StatusTracker,
): Promise<Notifier> {
  const { stateDir, metrics, logger, links = {} } = o;
  const [{ Notifier }, { NotifyStore }] = await Promise.all([import('./notify/notifier.js'), import('./notify/store.js')]);
  const notifier = new Notifier({
    config,
    store: await NotifyStore.open(stateDir),
    sourceUrl: status.status.source.source ?? '',
    logger,
    metrics,
    links,
  });
  status.log.onEvent((e) => notifier.onEvent(e));
  status.onPass((p) => (p.phase === 'start' ? notifier.passStarted(p.revision) : notifier.passFinished(p.revision, p.ok, p.message, p)));
  return notifier;
}
