/**
 * `packsync run`: the GitOps agent. Follows a git repository (or watches a directory), reconciles
 * on a schedule, an interval, file changes, webhooks and manual triggers, and serves probes,
 * status and metrics. SIGTERM/SIGINT stop it gracefully: no new call starts, the call in flight
 * finishes, the inventory is saved, exit 0 within 10 seconds. This file parses and checks the flags;
 * the agent builds its source, triggers and sidecar from them (agent/start.ts, agent/source/sources.ts).
 */
import { policyFrom } from './apply-policy.js';
import type { Command } from 'commander';
import { Option } from 'commander';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { addCommonOptions, buildRuntime } from './common.js';
import { intFlag } from './flag-values.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { addPlanFlags, planOptionsFrom, readConcurrencyOf } from './plan-options.js';
import type { PlanFlags } from './plan-options.js';
import { DEFAULT_ACTION_CONCURRENCY } from '../apply/defaults.js';
import type { NotificationConfig } from '../agent/notify/config.js';
import type { UpdateSettings } from '../agent/updater.js';
import type { AgentRunOptions } from '../agent/start.js';
import { rememberSecret } from '../util/secrets.js';

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
  allowInsecureGit?: boolean;
  concurrency: string;
  passTimeout: string;
  once?: boolean;
  verifyMode?: 'head' | 'tag' | 'range';
  allowRollback?: boolean;
  notifications?: string;
  trustedKeys?: string;
  externalUrl?: string;
  name?: string;
  policy?: string;
  updateInterval?: string;
  updatePushRef?: string;
  updateBranchPrefix: string;
  updateSignKey?: string;
  updatePullRequest?: string;
  updateAuthor: string;
}

export function registerRunCommand(program: Command, io: CliIo): void {
  defineRunCommand(program).action(async (f: RunFlags) => runCommand(f, io));
}

/** `run`'s flags (the agent's); the action is `runCommand`. */
function defineRunCommand(program: Command): Command {
  return addCommonOptions(
    // Drift is only reported by default (docs/manifests.md): an unattended agent must not undo a stop a
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
        .option('--git-ssh-key-file <file>', 'SSH private key for the git remote (env PACKSYNC_GIT_SSH_KEY_FILE)')
        .option(
          '--allow-insecure-git',
          'send the git token over a plain http:// URL anyway (refused by default: it is readable on the network)',
        ),
      { drift: 'report', target: false },
    )
      .option('--concurrency <n>', 'apply actions in parallel (1-256)', String(DEFAULT_ACTION_CONCURRENCY))
      .option('--pass-timeout <duration>', 'longest a single pass may take', '30m')
      .addOption(
        new Option(
          '--verify-mode <mode>',
          'apply only signed revisions: the commit (head), the tag of --ref (tag), or every new commit (range)',
        ).choices(['head', 'tag', 'range']),
      )
      .option('--trusted-keys <dir>', 'directory with an SSH allowed_signers file and/or OpenPGP *.asc public keys (with --verify-mode)')
      .option('--allow-rollback', 'with --verify-mode range|tag: apply a signed revision that does not descend from the last verified one')
      .option(
        '--notifications <file>',
        'send events and commit statuses to Teams, Slack, webhooks, GitHub, GitLab, Azure DevOps (see docs/agent.md)',
      )
      .option(
        '--external-url <url>',
        "the status page's address as people reach it: notifications, cards and commit statuses link to the object on it",
      )
      .option('--name <name>', "this agent's name in notifications and commit statuses (several agents sharing one channel)")
      .option(
        '--policy <file>',
        'rollout policy file (docs/policy.md): approvals by distinct trusted signers (--trusted-keys) for changes that reach many tenants',
      )
      .option('--update-interval <duration>', 'run `packsync update` against the git source this often and push the updates to branches')
      .option(
        '--update-push-ref <branch>',
        'push the updates onto this branch (e.g. the followed --ref) as a fast-forward instead of a branch per group',
      )
      .option('--update-branch-prefix <prefix>', 'prefix of the update branches', 'packsync/update')
      .option('--update-sign-key <file>', 'sign the update commits with this SSH key (put its public key in --trusted-keys to apply them)')
      .option('--update-pull-request <name>', 'open or update a pull request per update branch through provider NAME of --notifications')
      .option('--update-author <ident>', 'author and committer of the update commits', 'packsync <packsync@localhost>')
      .option('--once', 'run one pass and exit (0 in sync, 1 failed or invalid)'),
  );
}

async function runCommand(f: RunFlags, io: CliIo): Promise<void> {
  // The agent's modules (git, chokidar, node-cron, prom-client) load only when `run` runs.
  const [{ parseListen }, { createMetrics }, { parseDuration, checkSchedule }, { VerifyConfigError }, { runAgent }] = await Promise.all([
    import('../agent/http/http-server.js'),
    import('../agent/http/metrics.js'),
    import('../agent/triggers.js'),
    import('../agent/source/verify-keys.js'),
    import('../agent/start.js'),
  ]);
  // Without a trigger the agent would run one pass and then wait for nothing.
  if (!f.once && !f.interval && !f.schedule && !f.watch && !f.listen) {
    throw new UsageError(
      'run needs a trigger: --interval DURATION, --schedule CRON, --watch (directory source), --listen HOST:PORT (webhook, /reconcile), or --once for a single pass',
    );
  }
  // A typo in a flag is a usage error before anything runs, even where the flag would not be used (--once).
  if (f.schedule !== undefined) checkSchedule(f.schedule);
  // Half-configured verification must not quietly become "verify nothing".
  if (f.verifyMode && !f.trustedKeys)
    throw new VerifyConfigError('--verify-mode needs --trusted-keys DIR (an allowed_signers file and/or *.asc public keys)');
  const policy = await policyFrom({ ...(f.policy !== undefined ? { policy: f.policy } : {}) }, io);
  const approvals = policy?.approvals !== undefined;
  if (approvals && !f.trustedKeys)
    throw new VerifyConfigError('--policy with approvals needs --trusted-keys DIR: the people whose signatures approve a change');
  if (f.trustedKeys && !f.verifyMode && !approvals)
    throw new VerifyConfigError('--trusted-keys needs --verify-mode head|tag|range (or --policy with approvals)');
  const { secrets, webhookSecret, notifications } = await runSecrets(f, io);
  const links = notifyLinks(f);
  const updates = await updateSettings(f, notifications);
  const passTimeoutMs = parseDuration(f.passTimeout, '--pass-timeout');
  const intervalMs = f.interval ? parseDuration(f.interval, '--interval') : undefined;
  const listen = f.listen ? parseListen(f.listen) : undefined;
  const concurrency = intFlag(f.concurrency, '--concurrency');
  const readConcurrency = readConcurrencyOf(f);
  const metrics = createMetrics();
  const rt = await buildRuntime(f, io, secrets, {
    lockState: true,
    onRequest: (e) => {
      metrics.apiRequests.inc({ operation: e.operation, code: String(e.status ?? 0) });
      metrics.apiDuration.observe({ operation: e.operation }, e.durationMs / 1000);
    },
  });
  let once: Awaited<ReturnType<typeof runAgent>>;
  try {
    once = await runAgent({
      source: agentSource(f, io, approvals),
      api: rt.api,
      stateDir: rt.stateDir,
      state: rt.state,
      logger: rt.logger,
      metrics,
      planOptions: planOptionsFrom({ ...f, drift: f.drift ?? 'report' }),
      concurrency,
      readConcurrency,
      passTimeoutMs,
      ...(f.schedule ? { schedule: f.schedule } : {}),
      ...(intervalMs !== undefined ? { intervalMs } : {}),
      watch: f.watch === true,
      ...(listen ? { listen } : {}),
      webhookSecret,
      notifications,
      links,
      once: f.once === true,
      ...(updates ? { updates } : {}),
      ...(policy && approvals && f.trustedKeys ? { approvals: { policy, trustedKeys: f.trustedKeys } } : {}),
    });
  } catch (e) {
    // Whatever fails while the agent starts (a refused source, bad keys), the state's lock is
    // released: in-process callers and tests run on (regression: a refused source kept the lock).
    await rt.close().catch(() => undefined);
    throw e;
  }
  await rt.close();
  if ('signal' in once) {
    rt.logger.info('stopped');
    // Ctrl-C is an interruption like any command's (exit 130); SIGTERM is how an orchestrator stops it (exit 0).
    if (once.signal === 'SIGINT') {
      io.stderr('Interrupted: the agent stopped after the calls in flight; the next run resumes from the state.');
      io.setExitCode(130);
    }
    return;
  }
  io.stdout(JSON.stringify({ revision: once.revision, result: once.result, message: once.message }));
  io.setExitCode(once.ok ? 0 : 1);
}

/**
 * The secrets `run` is given (the webhook secret, git tokens, notification URLs and tokens): every
 * one is scrubbed from every log line. Also the webhook secret and the notifications file themselves.
 */
async function runSecrets(
  f: RunFlags,
  io: CliIo,
): Promise<{ secrets: string[]; webhookSecret: string | null; notifications: NotificationConfig | null }> {
  const secrets: string[] = [];
  const webhookSecret = f.webhookSecretFile
    ? await secretFile(io, f.webhookSecretFile, '--webhook-secret-file')
    : (io.env.PACKSYNC_WEBHOOK_SECRET ?? null);
  if (webhookSecret !== null) {
    if (webhookSecret.length < 16) throw new UsageError('the webhook secret must be at least 16 characters');
    secrets.push(webhookSecret);
  }
  if (io.env.PACKSYNC_GIT_TOKEN) secrets.push(io.env.PACKSYNC_GIT_TOKEN);
  if (f.gitTokenFile) secrets.push(await secretFile(io, f.gitTokenFile, '--git-token-file'));
  const notifications = f.notifications
    ? await (
        await import('../agent/notify/config.js')
      ).loadNotificationConfig(resolve(io.cwd, f.notifications), f.updatePullRequest !== undefined ? [f.updatePullRequest] : [])
    : null;
  // Webhook URLs and tokens are secrets: scrubbed from every log line.
  for (const p of notifications?.providers ?? [])
    secrets.push(...[p.address, p.token, p.secret].filter((x): x is string => x !== null && x.length >= 8));
  for (const s of secrets) rememberSecret(s);
  return { secrets, webhookSecret, notifications };
}

/** What the agent follows: the source, its credentials, and how its revisions are verified. */
function agentSource(f: RunFlags, io: CliIo, approvals: boolean): AgentRunOptions['source'] {
  return {
    source: f.source,
    ref: f.ref,
    ...(f.path ? { path: f.path } : {}),
    cwd: io.cwd,
    ...(f.gitTokenFile ? { tokenFile: f.gitTokenFile } : {}),
    ...(f.gitSshKeyFile ? { sshKeyFile: f.gitSshKeyFile } : {}),
    ...(f.allowInsecureGit ? { allowInsecureGit: true } : {}),
    ...(f.verifyMode && f.trustedKeys
      ? { verify: { mode: f.verifyMode, trustedKeys: f.trustedKeys, ...(f.allowRollback ? { allowRollback: true } : {}) } }
      : {}),
    ...(approvals ? { fullHistory: true } : {}),
    env: io.env,
  };
}

/** A secret read from a file a flag names: a missing or unreadable file is a usage error naming the flag. */
async function secretFile(io: CliIo, path: string, flag: string): Promise<string> {
  try {
    return (await readFile(resolve(io.cwd, path), 'utf8')).trim();
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new UsageError(`${flag}: cannot read ${path}${code ? ` (${code})` : ''}`);
  }
}

/** `--external-url` must be an absolute http(s) URL (it is put in messages people click); `--name` a short label. */
function notifyLinks(f: RunFlags): { externalUrl?: string; agentName?: string } {
  let externalUrl: string | undefined;
  if (f.externalUrl !== undefined) {
    let u: URL;
    try {
      u = new URL(f.externalUrl);
    } catch {
      throw new UsageError(`--external-url is not a URL (got "${f.externalUrl}")`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError('--external-url must be an http or https URL');
    if (u.username || u.password) throw new UsageError('--external-url must not carry credentials (it is sent in every notification)');
    externalUrl = u.toString();
  }
  const name = f.name?.trim();
  if (f.name !== undefined && (!name || name.length > 64)) throw new UsageError('--name must be 1 to 64 characters');
  return { ...(externalUrl ? { externalUrl } : {}), ...(name ? { agentName: name } : {}) };
}

/**
 * The update automation's settings (docs/agent.md "Update automation"): only with a git source, since
 * it proposes updates by pushing to it; every `--update-*` flag needs `--update-interval`.
 */
async function updateSettings(f: RunFlags, notifications: NotificationConfig | null): Promise<UpdateSettings | undefined> {
  const given = (['updatePushRef', 'updateSignKey', 'updatePullRequest'] as const).find((k) => f[k] !== undefined);
  if (f.updateInterval === undefined) {
    if (given) throw new UsageError(`--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --update-interval DURATION`);
    return undefined;
  }
  const [{ parseDuration }, { isGitUrl }, { validateRef }, { pullRequestProvider }] = await Promise.all([
    import('../agent/triggers.js'),
    import('../agent/source/sources.js'),
    import('../agent/source/git-source.js'),
    import('./update-provider.js'),
  ]);
  if (!isGitUrl(f.source)) throw new UsageError('--update-interval needs a git --source: the updates are pushed to it');
  const intervalMs = parseDuration(f.updateInterval, '--update-interval');
  if (intervalMs < 60_000) throw new UsageError('--update-interval must be at least 1m (each run reads the catalog)');
  if (f.updatePushRef !== undefined) validateRef(f.updatePushRef);
  const author = /^\s*([^<>]+?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/.exec(f.updateAuthor);
  if (!author) throw new UsageError(`--update-author must look like "Name <email@host>" (got "${f.updateAuthor}")`);
  let pullRequest;
  if (f.updatePullRequest !== undefined) {
    if (!notifications) throw new UsageError('--update-pull-request names a provider of --notifications FILE; pass it too');
    if (f.updatePushRef !== undefined)
      throw new UsageError('--update-pull-request opens requests for update branches; --update-push-ref pushes without one: pass one');
    pullRequest = pullRequestProvider(notifications, f.updatePullRequest, '--update-pull-request', f.notifications!);
  }
  return {
    intervalMs,
    branchPrefix: f.updateBranchPrefix,
    author: { name: author[1]!, email: author[2]! },
    ...(f.updatePushRef !== undefined ? { pushRef: f.updatePushRef } : {}),
    ...(f.updateSignKey !== undefined ? { signKey: f.updateSignKey } : {}),
    ...(pullRequest ? { pullRequest } : {}),
  };
}
