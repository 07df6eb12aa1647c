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
import { DEFAULT_PLAN_OPTIONS } from '../plan/types.js';
import { addCommonOptions, buildRuntime, positiveInt } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';

interface RunFlags extends CommonOptions {
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
  prune?: boolean;
  pruneAll?: boolean;
  adopt?: boolean;
  allowReplace?: boolean;
  drift: 'heal' | 'report';
  concurrency: string;
  passTimeout: string;
  once?: boolean;
  verifyMode?: 'head' | 'tag' | 'range';
  trustedKeys?: string;
}

/** A git URL (scheme or scp-like) rather than a local directory. */
export function isGitUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[\w.-]+@[\w.-]+:/.test(s) || /::/.test(s);
}

export function registerRunCommand(program: Command, io: CliIo): void {
  addCommonOptions(
    program
      .command('run')
      .description('run the GitOps agent: follow a git repository or directory and keep the service converged')
      .requiredOption('--source <url|dir>', 'git URL (https, ssh, git, file) or a local directory')
      .option('--ref <ref>', 'branch, tag or commit to follow (git sources)', 'main')
      .option('--path <subdir>', 'manifests sub-directory inside the source')
      .option('--schedule <cron>', 'reconcile on a cron schedule, e.g. "*/5 * * * *"')
      .option('--interval <duration>', 'reconcile every duration (with up to 10% jitter), e.g. 5m')
      .option('--watch', 'reconcile when files under the source directory change (debounced)')
      .option('--listen <host:port>', 'serve /healthz, /readyz, /status, /metrics, /webhook, /reconcile')
      .option('--webhook-secret-file <file>', 'secret for /webhook and /reconcile (env PACKSYNC_WEBHOOK_SECRET)')
      .option('--git-token-file <file>', 'HTTPS token for the git remote (env PACKSYNC_GIT_TOKEN)')
      .option('--git-ssh-key-file <file>', 'SSH private key for the git remote (env PACKSYNC_GIT_SSH_KEY_FILE)')
      .option('--prune', 'delete objects packsync created that are no longer in git')
      .option('--prune-all', 'allow --prune to delete everything when the desired set is empty')
      .option('--adopt', 'take over live objects that match a manifest but are not owned yet')
      .option('--allow-replace', 'replace flows whose spec changed (delete + create)')
      .addOption(new Option('--drift <policy>', 'what to do when someone changed live state').choices(['heal', 'report']).default('heal'))
      .option('--concurrency <n>', 'apply actions in parallel', '4')
      .option('--pass-timeout <duration>', 'longest a single pass may take', '30m')
      .addOption(new Option('--verify-mode <mode>', 'apply only signed revisions: the commit (head), the tag of --ref (tag), or every new commit (range)').choices(['head', 'tag', 'range']))
      .option('--trusted-keys <dir>', 'directory with an SSH allowed_signers file and/or OpenPGP *.asc public keys (with --verify-mode)')
      .option('--once', 'run one pass and exit (0 in sync, 1 failed or invalid)'),
  ).action(async (f: RunFlags) => {
    // The agent's modules (git, chokidar, node-cron, prom-client) load only when `run` runs.
    const [{ GitSource }, { startSidecar, parseListen }, { Agent }, { createMetrics }, { StatusTracker }, { intervalTrigger, parseDuration, scheduleTrigger, watchTrigger }, { loadTrustedKeys, VerifyConfigError }, { VerifiedSource, verifiableDirectory, verifiableGit }] = await Promise.all([
      import('../agent/git-source.js'),
      import('../agent/http-server.js'),
      import('../agent/loop.js'),
      import('../agent/metrics.js'),
      import('../agent/status.js'),
      import('../agent/triggers.js'),
      import('../agent/verify-keys.js'),
      import('../agent/verify-source.js'),
    ]);
    // Half-configured verification must not quietly become "verify nothing".
    if (f.verifyMode && !f.trustedKeys) throw new VerifyConfigError('--verify-mode needs --trusted-keys DIR (an allowed_signers file and/or *.asc public keys)');
    if (f.trustedKeys && !f.verifyMode) throw new VerifyConfigError('--trusted-keys needs --verify-mode head|tag|range');
    const secrets: string[] = [];
    const webhookSecret = f.webhookSecretFile ? (await readFile(resolve(io.cwd, f.webhookSecretFile), 'utf8')).trim() : (io.env.PACKSYNC_WEBHOOK_SECRET ?? null);
    if (webhookSecret !== null) {
      if (webhookSecret.length < 16) throw new UsageError('the webhook secret must be at least 16 characters');
      secrets.push(webhookSecret);
    }
    if (io.env.PACKSYNC_GIT_TOKEN) secrets.push(io.env.PACKSYNC_GIT_TOKEN);
    if (f.gitTokenFile) secrets.push((await readFile(resolve(io.cwd, f.gitTokenFile), 'utf8')).trim());
    const passTimeoutMs = parseDuration(f.passTimeout, '--pass-timeout');
    const intervalMs = f.interval ? parseDuration(f.interval, '--interval') : undefined;
    const listen = f.listen ? parseListen(f.listen) : undefined;
    const concurrency = positiveInt(f.concurrency, '--concurrency', 1);
    const metrics = createMetrics();
    const rt = await buildRuntime(f, io, secrets, {
      lockState: true,
      onRequest: (e) => {
        metrics.apiRequests.inc({ operation: e.operation, code: String(e.status ?? 0) });
        metrics.apiDuration.observe({ operation: e.operation }, e.durationMs / 1000);
      },
    });
    const logger = rt.logger;
    const keys = f.verifyMode && f.trustedKeys ? await loadTrustedKeys({ dir: resolve(io.cwd, f.trustedKeys), gnupgHome: join(rt.stateDir, 'gnupg'), env: io.env }).catch(async (e: unknown) => {
      await rt.close();
      throw e;
    }) : null;
    const status = new StatusTracker({ source: isGitUrl(f.source) ? f.source : resolve(io.cwd, f.source), ref: isGitUrl(f.source) ? f.ref : '', path: f.path ?? '' });
    const verifying = (s: ConstructorParameters<typeof VerifiedSource>[0]['source'], sourceName: string): InstanceType<typeof VerifiedSource> =>
      new VerifiedSource({ mode: f.verifyMode!, keys: keys!, source: s, stateDir: rt.stateDir, sourceName, ref: f.ref, env: io.env, status, counter: metrics.sourceVerification, logger });
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
        const v = (verified = verifying(verifiableDirectory({ sourceDir, ...(f.path ? { path: f.path } : {}), ref: f.ref, keys, exportDir: join(rt.stateDir, 'verified-tree'), env: io.env }), sourceDir));
        source = { sync: () => v.sync(), ref: null };
      }
      watchDir = dir;
    }
    const verifiedNow = verified;
    const agent = new Agent({
      source,
      api: rt.api,
      stateDir: rt.stateDir,
      state: rt.state,
      planOptions: { ...DEFAULT_PLAN_OPTIONS, prune: f.prune === true, pruneAll: f.pruneAll === true, adopt: f.adopt === true, allowReplace: f.allowReplace === true, drift: f.drift },
      concurrency,
      logger,
      metrics,
      status,
      passTimeoutMs,
      ...(intervalMs !== undefined ? { expectedIntervalMs: intervalMs } : {}),
      ...(verifiedNow ? { sourceReady: () => verifiedNow.headVerified } : {}),
    });
    if (f.once) {
      agent.trigger('once');
      await agent.idle();
      await rt.close();
      const r = status.status.history[0]?.result;
      io.stdout(JSON.stringify({ revision: status.status.lastAttemptedRevision, result: r, message: status.status.history[0]?.message }));
      io.setExitCode(r === 'Succeeded' && (verifiedNow?.headVerified ?? true) ? 0 : 1);
      return;
    }
    const triggers: Trigger[] = [];
    const fire = (reason: string): void => agent.trigger(reason);
    if (f.schedule) triggers.push(scheduleTrigger(f.schedule, fire));
    if (intervalMs !== undefined) triggers.push(intervalTrigger(intervalMs, fire));
    if (f.watch && watchDir) triggers.push(await watchTrigger(watchDir, fire));
    let sidecar: Sidecar | null = null;
    if (listen) {
      sidecar = await startSidecar({ ...listen, metrics, status, ready: () => agent.ready(), trigger: fire, webhookSecret, trackedRef: source.ref, logger });
      logger.info({ url: sidecar.url }, 'serving /healthz /readyz /status /metrics /webhook /reconcile');
    }
    logger.info({ source: status.status.source.source, ref: source.ref, ...(f.verifyMode ? { verifyMode: f.verifyMode } : {}) }, 'agent started');
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
    await sidecar?.close();
    await rt.close();
    logger.info('stopped');
  });
}
