/**
 * The body of an update's pull request: the plan of the branch's commit, as `packsync plan -o
 * markdown` would print it on that commit (docs/manifests.md, "Version policy"). The commit is
 * checked out into a temporary git worktree (the user's work tree is never touched) and planned
 * read-only against the live service and the state; promote/resume requests are left to the next pass.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { PacksyncApi } from '../api/operations.js';
import { planPass } from '../engine/reconcile.js';
import { formatPlanMarkdown, formatProblemsMarkdown } from '../plan/render/format.js';
import type { PlanOptions } from '../plan/types.js';
import type { State } from '../state/open-state.js';

export interface PlanBodyContext {
  api: PacksyncApi;
  stateDir: string;
  state?: State;
  planOptions: PlanOptions;
  readConcurrency?: number | undefined;
}

function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: { ...process.env, ...env }, timeout: 120_000 }, (err, out, stderr) =>
      err ? reject(new Error(`git ${args[0] ?? ''} failed: ${stderr.trim() || err.message}`)) : resolve(out),
    );
  });
}

/**
 * The plan of `commit` for the manifests at `path` (inside the work tree `top`), as markdown. A plan
 * that cannot be made is said in the body instead: the pull request still opens.
 */
export async function planMarkdownOf(top: string, commit: string, path: string, ctx: PlanBodyContext): Promise<string> {
  const scratch = await mkdtemp(join(tmpdir(), 'packsync-update-plan-'));
  const tree = join(scratch, 'tree');
  try {
    await git(top, ['worktree', 'add', '--detach', '--quiet', tree, commit]);
    const out = await planPass({
      path: join(tree, relative(top, path)),
      api: ctx.api,
      stateDir: ctx.stateDir,
      ...(ctx.state ? { state: ctx.state } : {}),
      planOptions: ctx.planOptions,
      ...(ctx.readConcurrency ? { readConcurrency: ctx.readConcurrency } : {}),
      revision: commit,
      leaveRequests: true,
    });
    return out.kind === 'invalid' ? formatProblemsMarkdown(out.problems) : formatPlanMarkdown(out.plan, { commit });
  } catch (e) {
    return `The plan of this commit could not be made: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`;
  } finally {
    await git(top, ['worktree', 'remove', '--force', tree]).catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
    await git(top, ['worktree', 'prune']).catch(() => undefined);
  }
}
