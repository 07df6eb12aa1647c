/**
 * `packsync update [PATH]`: keeps the `version` of catalog Packages with an `update` policy current by
 * writing git, never by calling a write operation (docs/manifests.md, "Version policy"). Prints one line
 * per change; `--commit` makes one commit per group on a clean work tree (and with `--sign-key`, an SSH
 * signature the agent's `--verify-mode` accepts).
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { addCommonOptions, buildRuntime } from './common.js';
import type { CommonOptions, Runtime } from './common.js';
import type { UpdateChange } from '../update/run.js';
import { DEFAULT_PLAN_OPTIONS } from '../plan/types.js';
import type { CliIo } from './io.js';
import type { Provider } from '../agent/notify/provider-types.js';
import { UsageError } from './io.js';
import { PacksyncError } from '../util/errors.js';
import { problemLines } from './print-problems.js';

interface UpdateOptions extends CommonOptions {
  output: 'text' | 'json';
  detailedExitcode?: boolean;
  commit?: boolean;
  signKey?: string;
  push?: string;
  branchPrefix: string;
  pullRequest?: string;
  notifications?: string;
}

export function registerUpdateCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('update')
    .description('move catalog packages with an `update` policy to the newest version it allows, by editing their manifests')
    .argument('[path]', 'manifest directory or file', '.')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--detailed-exitcode', 'exit 0 when nothing changed, 2 when a version changed, 1 on any error')
    .option('--commit', 'commit the edits, one commit per update group (the work tree must be clean)')
    .option('--sign-key <file>', 'sign each commit with this SSH private key (git commit -S, gpg.format=ssh)')
    .option('--push <remote>', "make each group's commit on its own branch from HEAD and push it there (the work tree stays as it is)")
    .option('--branch-prefix <prefix>', 'prefix of the branches of --push', 'packsync/update')
    .option('--pull-request <name>', 'open or update a pull/merge request per pushed branch through provider NAME of --notifications')
    .option('--notifications <file>', 'notification config whose github/gitlab/azuredevops provider --pull-request names');
  addCommonOptions(cmd);
  cmd.action(async (path: string, opts: UpdateOptions) => {
    if (opts.signKey && !opts.commit && !opts.push)
      throw new UsageError('--sign-key signs the commits of --commit or --push; pass one of them too');
    if (opts.push && opts.commit)
      throw new UsageError('--push makes the commits on branches of their own; --commit commits on the current branch: pass one');
    if (opts.pullRequest && (!opts.push || !opts.notifications))
      throw new UsageError('--pull-request opens requests for the branches of --push through a provider of --notifications; pass both');
    const provider = opts.pullRequest ? await providerOf(io, opts.notifications!, opts.pullRequest) : undefined;
    const target = resolve(io.cwd, path);
    const { planUpdates } = await import('../update/run.js');
    const gitOps = await import('../update/git.js');
    const top = opts.commit || opts.push ? await gitOps.cleanWorkTree(target).catch((e: unknown) => fail(e)) : undefined;
    const rt = await buildRuntime(opts, io);
    try {
      const root = (await stat(target).catch(() => null))?.isDirectory() ? target : dirname(target);
      const planned = await planUpdates(target, root, rt.api, rt.state.localDir);
      const errors = planned.problems.filter((p) => p.severity === 'error');
      if (planned.problems.length > 0) io.stderr(problemLines(planned.problems, 'update'));
      if (errors.length > 0) {
        io.setExitCode(1);
        return;
      }
      const commits =
        top && opts.push
          ? await pushed(top, target, opts, planned.changes, { rt, provider, io })
          : await written(top, planned.changes, opts);
      report(io, opts, planned, commits);
      if (opts.detailedExitcode && planned.changes.length > 0) io.setExitCode(2);
    } finally {
      await rt.close();
    }
  });
}

async function providerOf(io: CliIo, file: string, name: string): Promise<Provider> {
  const [{ loadNotificationConfig }, { pullRequestProvider }] = await Promise.all([
    import('../agent/notify/config.js'),
    import('./update-provider.js'),
  ]);
  return pullRequestProvider(await loadNotificationConfig(resolve(io.cwd, file), [name]), name, '--pull-request', file);
}

function fail(e: unknown): never {
  throw new UsageError(e instanceof Error ? e.message : String(e));
}

interface Made {
  group: string;
  sha: string;
  branch?: string;
  unchanged?: boolean;
}

/**
 * Writes the edits into the work tree; with `--commit`, one commit per group. Every edit is computed
 * before any file is written: a file that cannot be edited changes nothing.
 */
async function written(top: string | undefined, changes: readonly UpdateChange[], opts: UpdateOptions): Promise<Made[]> {
  const { editedFiles, editedFilesByGroup, groupChanges } = await import('../update/propose.js');
  if (!top) {
    for (const [f, text] of await editedFiles(changes)) await writeFile(f, text);
    return [];
  }
  // Each group's texts build on the groups before it (one file may hold packages of several groups).
  const groups = groupChanges(changes);
  const byGroup = await editedFilesByGroup(groups);
  const gitOps = await import('../update/git.js');
  const commits: Made[] = [];
  // All groups or none: a commit that fails (a signing key, a hook) takes back the groups before it
  // and every edit, so the branch and the work tree are as they were (docs/manifests.md, "Version policy").
  const start = await gitOps.headCommit(top);
  const edited = new Set<string>();
  try {
    for (const [group, of] of groups) {
      const files = byGroup.get(group)!;
      for (const [f, t] of files) {
        edited.add(f);
        await writeFile(f, t);
      }
      commits.push({ group, sha: await gitOps.commitFiles(top, [...files.keys()], gitOps.commitMessage(of), opts.signKey) });
    }
  } catch (e) {
    await gitOps.restoreTo(top, start, [...edited]);
    throw e;
  }
  return commits;
}

/** `--push`: a branch per group from HEAD (the work tree untouched), and with `--pull-request` its request. */
async function pushed(
  top: string,
  target: string,
  opts: UpdateOptions,
  changes: readonly UpdateChange[],
  ctx: { rt: Runtime; provider: Provider | undefined; io: CliIo },
): Promise<Made[]> {
  const [{ propose }, gitOps, { planMarkdownOf }] = await Promise.all([
    import('../update/propose.js'),
    import('../update/git.js'),
    import('../update/plan-body.js'),
  ]);
  const { rt, provider, io } = ctx;
  const base = (await gitOps.git(top, ['symbolic-ref', '--short', 'HEAD'])).trim();
  const { openOrUpdate } = await import('../agent/notify/pull-request.js');
  const proposals = await propose({
    top,
    remote: opts.push!,
    changes,
    branchPrefix: opts.branchPrefix,
    base,
    ...(opts.signKey ? { signKey: opts.signKey } : {}),
    ...(provider
      ? {
          pullRequest: (pr) => openOrUpdate(provider, pr),
          planBody: (commit) =>
            planMarkdownOf(top, commit, target, { api: rt.api, stateDir: rt.stateDir, state: rt.state, planOptions: DEFAULT_PLAN_OPTIONS }),
        }
      : {}),
  }).catch((e: unknown) => {
    // A remote or provider refusing is not a usage error (docs/errors.md): its own code.
    throw new PacksyncError('UPDATE_PUSH', e instanceof Error ? e.message : String(e));
  });
  for (const p of proposals) if (p.pullRequest) io.stdout(`Pull request ${p.pullRequest} for ${p.branch} (${provider!.name})`);
  return proposals.map((p) => ({ group: p.group, sha: p.commit, branch: p.branch, ...(p.pushed ? {} : { unchanged: true }) }));
}

function report(
  io: CliIo,
  opts: UpdateOptions,
  planned: { changes: { key: string; from: string; to: string; releasedAt: string; group: string }[]; reads: number },
  commits: Made[],
): void {
  if (opts.output === 'json') {
    io.stdout(
      JSON.stringify(
        {
          changes: planned.changes.map(({ key, from, to, releasedAt, group }) => ({ key, from, to, releasedAt, group })),
          commits,
          reads: planned.reads,
        },
        null,
        2,
      ),
    );
    return;
  }
  for (const c of planned.changes) io.stdout(`${c.key} ${c.from} → ${c.to} (released ${c.releasedAt.slice(0, 10)})`);
  for (const c of commits)
    io.stdout(
      c.unchanged
        ? `${c.branch} already holds this update (${c.group}); not pushed again`
        : c.branch
          ? `Pushed ${c.sha.slice(0, 12)} to ${c.branch} (${c.group})`
          : `Committed ${c.sha.slice(0, 12)} (${c.group})`,
    );
  if (planned.changes.length === 0)
    io.stdout(`Every followed package is on the newest version its policy allows (${planned.reads} catalog reads).`);
}
