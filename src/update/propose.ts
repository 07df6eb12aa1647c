/**
 * Proposing updates through git (docs/manifests.md, "Version policy"): the shared core of
 * `packsync update --push` and the agent's `--update-interval`. Every group's edits become a commit
 * from HEAD; the commits are pushed (a branch per group, or fast-forwarded onto one ref); each pushed
 * branch gets its pull/merge request opened or updated, with the plan of the change as its body.
 */
import { readFile } from 'node:fs/promises';
import { commitMessage } from './git.js';
import { branchName, pushGroups } from './push.js';
import type { GroupCommit } from './push.js';
import { placedVersionRanges, versionRanges, withVersions } from './rewrite.js';
import type { PlacedEdit, VersionEdit, VersionRange } from './rewrite.js';
import type { UpdateChange } from './run.js';

export interface PullRequestInput {
  branch: string;
  base: string;
  title: string;
  body: string;
}

export interface ProposeInput {
  /** The work tree root; HEAD is the base of every commit. */
  top: string;
  /** Remote name or URL. */
  remote: string;
  changes: readonly UpdateChange[];
  branchPrefix: string;
  /** Fast-forward this branch with every group's commit instead of a branch per group. */
  pushRef?: string;
  signKey?: string;
  /** Credentials for the push, in the child's environment only. */
  env?: Record<string, string>;
  /** Open or update a pull request for a pushed branch (branch mode only). */
  pullRequest?: (pr: PullRequestInput) => Promise<'opened' | 'updated' | 'failed'>;
  /** Whether a branch's pull request is opened or updated (default: every branch, pushed or unchanged). */
  needsPullRequest?: (branch: string, pushed: boolean) => boolean | Promise<boolean>;
  /** The branch pull requests merge into. */
  base?: string;
  /** The body of a branch's pull request: the plan of its commit as markdown. */
  planBody?: (commit: string, changes: readonly UpdateChange[]) => Promise<string>;
}

export interface Proposal {
  group: string;
  /** The branch pushed to (the push ref in `pushRef` mode). */
  branch: string;
  commit: string;
  title: string;
  changes: UpdateChange[];
  /** False when the remote branch already held exactly this content. */
  pushed: boolean;
  pullRequest?: 'opened' | 'updated' | 'failed';
}

/** Changes by group, in the order they came. */
export function groupChanges<T extends { group: string }>(changes: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const c of changes) out.set(c.group, [...(out.get(c.group) ?? []), c]);
  return out;
}

/** Each file's new text after the given changes (each file read and parsed once). */
export async function editedFiles(changes: readonly UpdateChange[]): Promise<Map<string, string>> {
  return (await editedFilesByGroup(new Map([['', changes]]))).get('')!;
}

/**
 * Each group's files as `editedFiles` chained group by group gives them (a file two groups edit
 * carries the first group's edits into the second's), with each file read and parsed once: a
 * week of 500 packages without a group (one group, and one commit, each) in 20 files parsed them 500 times.
 */
export async function editedFilesByGroup(groups: ReadonlyMap<string, readonly UpdateChange[]>): Promise<Map<string, Map<string, string>>> {
  const all = [...groups.values()].flat();
  const byFile = new Map<string, UpdateChange[]>();
  for (const c of all) byFile.set(c.absFile, [...(byFile.get(c.absFile) ?? []), c]);
  const original = new Map<string, string>();
  const rangeOf = new Map<UpdateChange, VersionRange>();
  for (const [file, changes] of byFile) {
    const text = await readFile(file, 'utf8');
    original.set(file, text);
    (placedRanges(text, changes) ?? versionRanges(text, changes.map(editOf))).forEach((r, i) => rangeOf.set(changes[i]!, r));
  }
  const done = new Map<string, VersionRange[]>();
  const out = new Map<string, Map<string, string>>();
  for (const [group, changes] of groups) {
    const files = new Map<string, string>();
    for (const c of changes) done.set(c.absFile, [...(done.get(c.absFile) ?? []), rangeOf.get(c)!]);
    for (const file of new Set(changes.map((c) => c.absFile))) files.set(file, withVersions(original.get(file)!, done.get(file)!));
    out.set(group, files);
  }
  return out;
}

/** The ranges from where the load found each version, when every change of the file has its place. */
function placedRanges(text: string, changes: readonly UpdateChange[]): VersionRange[] | undefined {
  const placed: PlacedEdit[] = [];
  for (const c of changes) {
    if (!c.placed || c.at) return undefined;
    placed.push({ ...c.placed, from: c.from, version: c.to });
  }
  return placedVersionRanges(text, placed);
}

function editOf(c: UpdateChange): VersionEdit {
  return c.at ? { index: c.at.index, path: c.at.path, version: c.to } : { packageName: c.name, version: c.to };
}

export async function propose(i: ProposeInput): Promise<Proposal[]> {
  const made: (GroupCommit & { group: string; changes: UpdateChange[] })[] = [];
  for (const [group, changes] of groupChanges(i.changes)) {
    // Each group's files carry only that group's edits (chained groups build on the previous commit).
    made.push({
      group,
      changes,
      branch: branchName(i.branchPrefix, group),
      message: commitMessage(changes),
      files: await editedFiles(changes),
    });
  }
  const pushed = await pushGroups(i.top, i.remote, made, {
    ...(i.signKey ? { signKey: i.signKey } : {}),
    ...(i.env ? { env: i.env } : {}),
    ...(i.pushRef ? { pushRef: i.pushRef } : {}),
  });
  const out: Proposal[] = [];
  for (const m of made) {
    const p: Proposal = {
      group: m.group,
      branch: i.pushRef ?? m.branch,
      commit: pushed.commits.get(m.branch)!,
      title: m.message.split('\n')[0]!,
      changes: m.changes,
      pushed: !pushed.unchanged.has(m.branch),
    };
    if (i.pullRequest && !i.pushRef && ((await i.needsPullRequest?.(m.branch, p.pushed)) ?? true)) {
      const plan = i.planBody ? await i.planBody(p.commit, m.changes) : '';
      const body = `Planned change (packsync update):\n\n${changeTable(m.changes)}\n\n${plan}`;
      p.pullRequest = await i.pullRequest({ branch: m.branch, base: i.base ?? 'main', title: p.title, body }).catch((e: unknown) => {
        // The branches are pushed by now: the error says so, so the user knows what is on the remote.
        const on = made.map((x) => `${x.branch} (${pushed.commits.get(x.branch)!.slice(0, 12)})`).join(', ');
        throw new Error(
          `${e instanceof Error ? e.message : String(e)}; the branches are pushed: ${on}; once that is fixed, run the same command again to open the pull request`,
          {
            cause: e,
          },
        );
      });
    }
    out.push(p);
  }
  return out;
}

/** The versions a group changes, as a markdown table (above the plan in a pull request's body). */
export function changeTable(changes: readonly UpdateChange[]): string {
  return ['| Package | From | To | Released |', '|---|---|---|---|']
    .concat(changes.map((c) => `| ${c.key} | ${c.from} | ${c.to} | ${c.releasedAt.slice(0, 10)} |`))
    .join('\n');
}
