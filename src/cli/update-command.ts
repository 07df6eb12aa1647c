/**
 * `packsync update [PATH]`: keeps the `version` of catalog Packages with an `update` policy current by
 * writing git, never by calling a write operation (docs/manifests.md, "Version policy"). Prints one line
 * per change; `--commit` makes one commit per group on a clean work tree (and with `--sign-key`, an SSH
 * signature the agent's `--verify-mode` accepts).
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { addCommonOptions, buildRuntime } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import type { Provider } from '../agent/notify/config.js';
import { UsageError } from './io.js';
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
    const provider = opts.pullRequest ? await pullRequestProvider(io, opts.notifications!, opts.pullRequest) : undefined;
    const target = resolve(io.cwd, path);
    const { planUpdates } = await import('../update/run.js');
    const gitOps = await import('../update/git.js');
    const top = opts.commit || opts.push ? await gitOps.cleanWorkTree(target).catch((e: unknown) => fail(e)) : undefined;
    const rt = await buildRuntime(opts, io);
    try {
      const { rewriteVersion } = await import('../update/rewrite.js');
      const root = (await stat(target).catch(() => null))?.isDirectory() ? target : dirname(target);
      const planned = await planUpdates(target, root, rt.api);
      const errors = planned.problems.filter((p) => p.severity === 'error');
      if (planned.problems.length > 0) io.stderr(problemLines(planned.problems, 'update'));
      if (errors.length > 0) {
        io.setExitCode(1);
        return;
      }
      // Every edit is computed before any file is written: a file that cannot be edited changes nothing.
      const edits = new Map<string, string>();
      for (const c of planned.changes)
        edits.set(c.absFile, rewriteVersion(edits.get(c.absFile) ?? (await readFile(c.absFile, 'utf8')), c.name, c.to));
      const commits: { group: string; sha: string; branch?: string }[] = [];
      if (top && opts.push) {
        const { pushGroups, branchName } = await import('../update/push.js');
        // Each branch starts from HEAD, so a group's files carry only that group's edits.
        const made = [];
        for (const [group, changes] of groups(planned.changes)) {
          const files = new Map<string, string>();
          for (const c of changes)
            files.set(c.absFile, rewriteVersion(files.get(c.absFile) ?? (await readFile(c.absFile, 'utf8')), c.name, c.to));
          made.push({ group, branch: branchName(opts.branchPrefix, group), message: gitOps.commitMessage(changes), files });
        }
        const shas = await pushGroups(top, opts.push, made, opts.signKey).catch((e: unknown) => fail(e));
        for (const m of made) commits.push({ group: m.group, sha: shas.get(m.branch)!, branch: m.branch });
        if (provider) {
          const { openOrUpdate } = await import('./update-pull-request.js');
          const base = (await gitOps.git(top, ['symbolic-ref', '--short', 'HEAD'])).trim();
          for (const [group, changes] of groups(planned.changes)) {
            const title = gitOps.commitMessage(changes).split('\n')[0]!;
            const body = ['Planned change (packsync update):', '', '| Package | From | To | Released |', '|---|---|---|---|']
              .concat(changes.map((c) => `| ${c.key} | ${c.from} | ${c.to} | ${c.releasedAt.slice(0, 10)} |`))
              .join('\n');
            const how = await openOrUpdate(provider, { branch: branchName(opts.branchPrefix, group), base, title, body });
            io.stdout(`Pull request ${how} for ${branchName(opts.branchPrefix, group)} (${provider.name})`);
          }
        }
      } else if (top) {
        for (const [group, changes] of groups(planned.changes)) {
          const files = [...new Set(changes.map((c) => c.absFile))];
          for (const f of files) await writeFile(f, edits.get(f)!);
          commits.push({ group, sha: await gitOps.commitFiles(top, files, gitOps.commitMessage(changes), opts.signKey) });
        }
      } else {
        for (const [f, text] of edits) await writeFile(f, text);
      }
      report(io, opts, planned, commits);
      if (opts.detailedExitcode && planned.changes.length > 0) io.setExitCode(2);
    } finally {
      await rt.close();
    }
  });
}

async function pullRequestProvider(io: CliIo, file: string, name: string): Promise<Provider> {
  const { loadNotificationConfig, COMMIT_STATUS_TYPES } = await import('../agent/notify/config.js');
  const config = await loadNotificationConfig(resolve(io.cwd, file));
  const p = config.providers.find((x) => x.name === name);
  if (!p) throw new UsageError(`--pull-request: no provider "${name}" in ${file}`);
  if (!COMMIT_STATUS_TYPES.has(p.type))
    throw new UsageError(`--pull-request: provider "${name}" is ${p.type}; it must be github, gitlab or azuredevops`);
  if (!p.repository) throw new UsageError(`--pull-request: provider "${name}" needs repository: owner/repo`);
  return p;
}

function fail(e: unknown): never {
  throw new UsageError(e instanceof Error ? e.message : String(e));
}

function groups<T extends { group: string }>(changes: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const c of changes) out.set(c.group, [...(out.get(c.group) ?? []), c]);
  return out;
}

function report(
  io: CliIo,
  opts: UpdateOptions,
  planned: { changes: { key: string; from: string; to: string; releasedAt: string; group: string }[]; reads: number },
  commits: { group: string; sha: string; branch?: string }[],
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
    io.stdout(c.branch ? `Pushed ${c.sha.slice(0, 12)} to ${c.branch} (${c.group})` : `Committed ${c.sha.slice(0, 12)} (${c.group})`);
  if (planned.changes.length === 0)
    io.stdout(`Every followed package is on the newest version its policy allows (${planned.reads} catalog reads).`);
}
