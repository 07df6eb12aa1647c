/**
 * `packsync run`: the GitOps agent. Follows a git repository (or watches a directory), reconciles
 * on a schedule, an interval, file changes, webhooks and manual triggers, and serves probes,
 * status and metrics. SIGTERM/SIGINT stop it gracefully: no new call starts, the call in flight
 * finishes, the inventory is saved, exit 0 within 10 seconds.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Sidecar } from '../agent/http-server.js';
import type { PassSource } from '../agent/loop.js';
import type { Trigger } from '../agent/triggers.js';
import type { AgentMetrics } from '../agent/metrics.js';
import type { NotificationConfig } from '../agent/notify/config.js';
import type { Notifier } from '../agent/notify/notifier.js';
import type { StatusTracker } from '../agent/status.js';
import type { Logger } from 'pino';
import { redactUrl } from '../agent/redact-url.js';
import { addCommonOptions, buildRuntime, positiveInt } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { addPlanFlags, planOptionsFrom } from './plan-options.js';
import type { PlanFlags } from './plan-options.js';

interface RunFlags extends CommonOptions, PlanFlags {
  source: string;
  ref: string;
  path?: string;
  schedule?: string;
  interval?: string;
  watch?: boolean;
  listen?: string;
  webhookSecretFile?: string;
  gitTokenFile?: string;
  gitSshKeyFile?: string;
  concurrency: string;
  passTimeout: string;
  once?: boolean;
  verifyMode?: 'head' | 'tag' | 'range';
  notifications?: string;
  trustedKeys?: string;
}

/** A git URL (scheme or scp-like) rather than a local directory. */
export function isGitUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[\w.-]+@[\w.-]+:/.test(s) || /::/.test(s);
}

export function registerRunCommand(program: Command, io: CliIo): void {
  addCommonOptions(
    // Drift is only reported by default (design §3): an unattended agent must not undo a stop a
    // person made in the web console; `--drift heal` opts in, with the per-object heal backoff.
    addPlanFlags(
      program
        .command('run')
        .description('run the GitOps agent: follow a git repository or directory and keep the service converged')
        .requiredOption('--source <url|dir>', 'git URL (https, ssh, git, file) or a local directory')
        .option('--ref <ref>', 'branch, tag or commit to follow (git sources)', 'main')
        .option('--path <subdir>', 'manifests sub-directory inside the source')
        .option('--schedule <cron>', 'reconcile on a cron schedule, e.g. "*/5 * * * *"')
        .option('--interval <duration>', 'reconcile every duration (with up to 10% jitter), e.g. 5m')
        .option('--watch', 'reconcile when files under the source directory change (debounced)')
        .option('--listen <host:port>', 'serve the status page (/), /healthz, /readyz, /status, /metrics, /webhook, /reconcile')
        .option('--webhook-secret-file <file>', 'secret for /webhook and /reconcile (env PACKSYNC_WEBHOOK_SECRET)')
        .option('--git-token-file <file>', 'HTTPS token for the git remote (env PACKSYNC_GIT_TOKEN)')
        .option('--git-ssh-key-file <file>', 'SSH private key for the git remote (env PACKSYNC_GIT_SSH_KEY_FILE)'),
      { drift: 'report' },
    )
      .option('--concurrency <n>', 'apply actions in parallel', '4')
      .option('--pass-timeout <duration>', 'longest a single pass may take', '30m')
      .addOption(
        new Option(
          '--verify-mode <mode>',
          'apply only signed revisions: the commit (head), the tag of --ref (tag), or every new commit (range)',
        ).choices(['head', 'tag', 'range']),
      )
      .option('--trusted-keys <dir>', 'directory with an SSH allowed_signers file and/or OpenPGP *.asc public keys (with --verify-mode)')
      .option(
        '--notifications <file>',
        'send events and commit statuses to Teams, Slack, webhooks, GitHub, GitLab, Azure DevOps (see docs/agent.md)',
      )
      .option('--once', 'run one pass and exit (0 in sync, 1 failed or invalid)'),
  ).action(async (f: RunFlags) => {
    // The agent's modules (git, chokidar, node-cron, prom-client) load only when `run` runs.
    const [
      { GitSource },
      { startSidecar, parseListen },
      { Agent },
      { createMetrics },
      { StatusTracker },
      { intervalTrigger, parseDuration, requestTrigger, scheduleTrigger, watchTrigger },
      { loadTrustedKeys, VerifyConfigError },
      { VerifiedSource, verifiableDirectory, verifiableGit },
    ] = await Promise.all([
      import('../agent/git-source.js'),
      import('../agent/http-server.js'),
      import('../agent/loop.js'),
      import('../agent/metrics.js'),
      import('../agent/status.js'),
      import('../agent/triggers.js'),
      import('../agent/verify-keys.js'),
      import('../agent/verify-source.js'),
    ]);
    // Without a trigger the agent would run one pass and then wait for nothing.
    if (!f.once && !f.interval && !f.schedule && !f.watch && !f.listen) {
      throw new UsageError(
        'run needs a trigger: --interval DURATION, --schedule CRON, --watch (directory source), --listen HOST:PORT (webhook, /reconcile), or --once for a single pass',
      );
    }
    // Half-configured verification must not quietly become "verify nothing".
    if (f.verifyMode && !f.trustedKeys)
      throw new VerifyConfigError('--verify-mode needs --trusted-keys DIR (an allowed_signers file and/or *.asc public keys)');
    if (f.trustedKeys && !f.verifyMode) throw new VerifyConfigError('--trusted-keys needs --verify-mode head|tag|range');
    const secrets: string[] = [];
    const webhookSecret = f.webhookSecretFile
      ? (await readFile(resolve(io.cwd, f.webhookSecretFile), 'utf8')).trim()
      : (io.env.PACKSYNC_WEBHOOK_SECRET ?? null);
    if (webhookSecret !== null) {
      if (webhookSecret.length < 16) throw new UsageError('the webhook secret must be at least 16 characters');
      secrets.push(webhookSecret);
    }
    if (io.env.PACKSYNC_GIT_TOKEN) secrets.push(io.env.PACKSYNC_GIT_TOKEN);
    if (f.gitTokenFile) secrets.push((await readFile(resolve(io.cwd, f.gitTokenFile), 'utf8')).trim());
    const notifyConfig = f.notifications
      ? await (await import('../agent/notify/config.js')).loadNotificationConfig(resolve(io.cwd, f.notifications))
      : null;
    // Webhook URLs and tokens are secrets: scrubbed from every log line.
    for (const p of notifyConfig?.providers ?? [])
      secrets.push(...[p.address, p.token, p.secret].filter((x): x is string => x !== null && x.length >= 8));
    const passTimeoutMs = parseDuration(f.passTimeout, '--pass-timeout');
    const intervalMs = f.interval ? parseDuration(f.interval, '--interval') : undefined;
    const listen = f.listen ? parseListen(f.listen) : undefined;
    const concurrency = positiveInt(f.concurrency, '--concurrency', 1);
    const readConcurrency = positiveInt(f.readConcurrency ?? '8', '--read-concurrency', 1);
    const metrics = createMetrics();
    const rt = await buildRuntime(f, io, secrets, {
      lockState: true,
      onRequest: (e) => {
        metrics.apiRequests.inc({ operation: e.operation, code: String(e.status ?? 0) });
        metrics.apiDuration.observe({ operation: e.operation }, e.durationMs / 1000);
      },
    });
    // Whatever fails while the agent starts (a refused source, bad keys), the state's lock is
    // released: in-process callers and tests run on (regression: a refused source kept the lock).
    try {
      const logger = rt.logger;
      const keys =
        f.verifyMode && f.trustedKeys
          ? await loadTrustedKeys({ dir: resolve(io.cwd, f.trustedKeys), gnupgHome: join(rt.stateDir, 'gnupg'), env: io.env }).catch(
              async (e: unknown) => {
                await rt.close();
                throw e;
              },
            )
          : null;
      const status = new StatusTracker({
        source: isGitUrl(f.source) ? redactUrl(f.source) : resolve(io.cwd, f.source),
        ref: isGitUrl(f.source) ? f.ref : '',
        path: f.path ?? '',
      });
      const verifying = (
        s: ConstructorParameters<typeof VerifiedSource>[0]['source'],
        sourceName: string,
      ): InstanceType<typeof VerifiedSource> =>
        new VerifiedSource({
          mode: f.verifyMode!,
          keys: keys!,
          source: s,
          stateDir: rt.stateDir,
          sourceName,
          ref: f.ref,
          env: io.env,
          status,
          counter: metrics.sourceVerification,
          logger,
        });
      let verified: InstanceType<typeof VerifiedSource> | null = null;
      let source: PassSource;
      let watchDir: string | null = null;
      if (isGitUrl(f.source)) {
        const git = new GitSource({
          url: f.source,
          ref: f.ref,
          ...(f.path ? { path: f.path } : {}),
          workDir: join(rt.stateDir, 'source'),
          ...(f.gitTokenFile ? { tokenFile: resolve(io.cwd, f.gitTokenFile) } : {}),
          ...(f.gitSshKeyFile ? { sshKeyFile: resolve(io.cwd, f.gitSshKeyFile) } : {}),
          env: io.env,
          ...(f.verifyMode === 'range' ? { fullHistory: true } : {}),
        });
        source = { sync: () => git.sync(), ref: f.ref };
        if (keys) {
          const v = (verified = verifying(verifiableGit(git), git.displayUrl));
          source = { sync: () => v.sync(), ref: f.ref };
        }
        if (f.watch) throw new UsageError('--watch needs a directory --source (for git sources use --interval, --schedule or the webhook)');
      } else {
        const dir = resolve(io.cwd, f.source, f.path ?? '.');
        const st = await stat(dir).catch(() => null);
        if (!st?.isDirectory()) throw new UsageError(`--source ${f.source} is neither a git URL nor a directory`);
        source = { sync: () => Promise.resolve({ dir, revision: null, label: dir }), ref: null };
        if (keys) {
          // A git work tree (git-sync): the verified commit is what is applied, not the files as they lie.
          const sourceDir = resolve(io.cwd, f.source);
          const v = (verified = verifying(
            verifiableDirectory({
              sourceDir,
              ...(f.path ? { path: f.path } : {}),
              ref: f.ref,
              keys,
              exportDir: join(rt.stateDir, 'verified-tree'),
              env: io.env,
            }),
            sourceDir,
          ));
          source = { sync: () => v.sync(), ref: null };
        }
        watchDir = dir;
      }
      const verifiedNow = verified;
      const notifier = notifyConfig ? await startNotifier(notifyConfig, rt.stateDir, status, metrics, logger) : null;
      const flushNotifications = (): Promise<unknown> =>
        notifier ? Promise.race([notifier.flush(), new Promise((r) => setTimeout(r, 5000).unref())]) : Promise.resolve();
      const agent = new Agent({
        source,
        api: rt.api,
        stateDir: rt.stateDir,
        state: rt.state,
        planOptions: planOptionsFrom({ ...f, drift: f.drift ?? 'report' }),
        concurrency,
        readConcurrency,
        logger,
        metrics,
        status,
        passTimeoutMs,
        ...(intervalMs !== undefined ? { expectedIntervalMs: intervalMs } : {}),
        ...(verifiedNow ? { sourceReady: () => verifiedNow.headVerified } : {}),
        // One pass and exit: nothing would continue a deferred wait, so --once waits like apply does.
        ...(f.once ? { waitBudgetMs: Infinity } : {}),
      });
      if (f.once) {
        agent.trigger('once');
        await agent.idle();
        await flushNotifications();
        await rt.close();
        const last = status.status.history[0];
        const r = last?.result;
        // A directory source has its revision (the digest) only once the pass loaded it.
        io.stdout(
          JSON.stringify({ revision: status.status.lastAttemptedRevision ?? last?.revision ?? null, result: r, message: last?.message }),
        );
        io.setExitCode(r === 'Succeeded' && (verifiedNow?.headVerified ?? true) ? 0 : 1);
        return;
      }
      const triggers: Trigger[] = [];
      const fire = (reason: string): void => agent.trigger(reason);
      if (f.schedule) triggers.push(scheduleTrigger(f.schedule, fire));
      if (intervalMs !== undefined) triggers.push(intervalTrigger(intervalMs, fire));
      if (f.watch && watchDir) triggers.push(await watchTrigger(watchDir, fire));
      if (rt.state.requests) triggers.push(requestTrigger(rt.state.requests, fire));
      let sidecar: Sidecar | null = null;
      if (listen) {
        sidecar = await startSidecar({
          ...listen,
          metrics,
          status,
          ready: () => agent.ready(),
          trigger: fire,
          webhookSecret,
          trackedRef: source.ref,
          logger,
        });
        logger.info({ url: sidecar.url }, 'serving / (status page) /healthz /readyz /status /metrics /webhook /reconcile');
      }
      logger.info(
        { source: status.status.source.source, ref: source.ref, ...(f.verifyMode ? { verifyMode: f.verifyMode } : {}) },
        'agent started',
      );
      agent.trigger('startup');
      await new Promise<void>((resolveStop) => {
        const stop = (signal: string): void => {
          process.off('SIGINT', onInt);
          process.off('SIGTERM', onTerm);
          logger.info({ signal }, 'shutting down: no new calls; waiting for the call in flight');
          resolveStop();
        };
        const onInt = (): void => stop('SIGINT');
        const onTerm = (): void => stop('SIGTERM');
        process.on('SIGINT', onInt);
        process.on('SIGTERM', onTerm);
      });
      await Promise.all(triggers.map((t) => t.stop()));
      await agent.stop();
      await flushNotifications();
      await sidecar?.close();
      await rt.close();
      logger.info('stopped');
    } catch (e) {
      await rt.close().catch(() => undefined);
      throw e;
    }
  });
}

/** Notifications listen to the status: every event occurrence, and each pass's start and end. */
async function startNotifier(
  config: NotificationConfig,
  stateDir: string,
  status: StatusTracker,
  metrics: AgentMetrics,
  logger: Logger,
): Promise<Notifier> {
  const [{ Notifier }, { NotifyStore }] = await Promise.all([import('../agent/notify/notifier.js'), import('../agent/notify/store.js')]);
  const notifier = new Notifier({
    config,
    store: await NotifyStore.open(stateDir),
    sourceUrl: status.status.source.source ?? '',
    logger,
    metrics,
  });
  status.log.onEvent((e) => notifier.onEvent(e));
  status.onPass((p) => (p.phase === 'start' ? notifier.passStarted(p.revision) : notifier.passFinished(p.revision, p.ok, p.message)));
  return notifier;
}
