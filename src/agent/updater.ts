/**
 * The agent's update automation (`run --update-interval DURATION`, docs/agent.md "Update
 * automation"): on that interval, `packsync update` against the agent's own source. It keeps a clone
 * of its own (state directory, `update-source/`) so it never races a pass over the pass's checkout,
 * proposes each group's update on a branch (`packsync/update/GROUP`), or fast-forwards
 * `--update-push-ref` with them, and opens or updates pull requests through a provider of
 * `--notifications`. Nothing it does is applied by itself: an update reaches the service only after
 * it lands in the followed ref and the normal pass (verification, approvals, plan, gates) takes it.
 */
import type { Logger } from 'pino';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeAtomic } from '../state/durable-file.js';
import type { PacksyncApi } from '../api/operations.js';
import type { PlanOptions } from '../plan/types.js';
import type { State } from '../state/open-state.js';
import { planUpdates } from '../update/run.js';
import { propose } from '../update/propose.js';
import type { Proposal } from '../update/propose.js';
import { planMarkdownOf } from '../update/plan-body.js';
import { errorMessage } from '../util/errors.js';
import { GitSource } from './source/git-source.js';
import type { Provider } from './notify/provider-types.js';
import { openOrUpdate, pullRequestExists } from './notify/pull-request.js';
import { gitSourceOptions } from './source/sources.js';
import type { SourceSettings } from './source/sources.js';
import type { StatusTracker } from './http/status.js';

export interface UpdateSettings {
  intervalMs: number;
  /** Fast-forward this branch (the followed ref, for unattended updates) instead of a branch per group. */
  pushRef?: string;
  branchPrefix: string;
  /** SSH key signing the update commits (its public half in the trusted keys, with `--verify-mode`). */
  signKey?: string;
  /** Author and committer of the update commits. */
  author: { name: string; email: string };
  /** The github/gitlab/azuredevops provider that opens pull requests for the branches. */
  pullRequest?: Provider;
}

export interface UpdaterOptions {
  settings: UpdateSettings;
  source: SourceSettings;
  api: PacksyncApi;
  stateDir: string;
  state: State;
  planOptions: PlanOptions;
  readConcurrency?: number | undefined;
  status: StatusTracker;
  logger: Logger;
  /** Starts a pass: the update was pushed to the ref the agent follows. */
  trigger: (reason: string) => void;
}

/**
 * What the updater's events are about: `Updates/GROUP` for a proposal, `Updates/source` for the
 * automation as a whole (a failed run, and the `Recovered` that answers it).
 */
const UPDATES_OBJECT = 'Updates/source';

export class Updater {
  private readonly git: GitSource;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;
  private failing = false;
  /**
   * Branches whose pull request could not be opened: tried again on the next run although the branch
   * is unchanged. Kept in the state directory, so a restart (or `--once` runs) still owes them; a pull
   * request a person closed is never opened again for the same update.
   */
  private readonly pullRequestsOwed: OwedPullRequests;

  constructor(private readonly o: UpdaterOptions) {
    this.git = new GitSource(gitSourceOptions(o.source, join(o.stateDir, 'update-source')));
    this.pullRequestsOwed = new OwedPullRequests(join(o.stateDir, 'update-pull-requests.json'));
  }

  /** Runs now, then every interval until `stop`. */
  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.running = this.runOnce().finally(() => {
        this.running = null;
        if (!this.stopped) this.timer = setTimeout(tick, this.o.settings.intervalMs);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One update run: never throws; its outcome is an event (UpdateProposed, UpdateFailed, Recovered). */
  async runOnce(): Promise<Proposal[]> {
    try {
      const proposals = await this.proposeUpdates();
      if (this.failing) {
        this.failing = false;
        this.o.status.event({ reason: 'Recovered', object: UPDATES_OBJECT, message: 'the update automation works again', revision: null });
      }
      return proposals;
    } catch (e) {
      this.failing = true;
      const message = errorMessage(e);
      this.o.logger.warn({ err: message }, 'update automation failed');
      this.o.status.event({ reason: 'UpdateFailed', object: UPDATES_OBJECT, message, revision: null });
      return [];
    }
  }

  private async proposeUpdates(): Promise<Proposal[]> {
    const { o } = this;
    const rev = await this.git.sync();
    const planned = await planUpdates(rev.dir, rev.dir, o.api, o.state.localDir);
    const errors = planned.problems.filter((p) => p.severity === 'error');
    if (errors.length > 0) {
      const first = errors[0]!;
      throw new Error(
        `${errors.length} problem(s) stop the update of ${rev.label}; first: ${first.file}:${first.line}:${first.column} ${first.message}`,
      );
    }
    // A move skipped with a warning (update.duplicate, an unknown skip) would otherwise never be told.
    for (const w of planned.problems)
      o.logger.warn({ file: w.file, line: w.line, column: w.column, rule: w.rule }, `update automation: ${w.message}`);
    if (planned.changes.length === 0) return [];
    const top = this.git.workDir;
    const s = o.settings;
    const env = { ...(await this.git.gitEnvironment()), ...authorEnv(s.author) };
    const provider = s.pullRequest;
    const refused: string[] = [];
    const owed = await this.pullRequestsOwed.read();
    const proposals = await propose({
      top,
      remote: 'origin',
      changes: planned.changes,
      branchPrefix: s.branchPrefix,
      env,
      base: o.source.ref,
      ...(s.pushRef ? { pushRef: s.pushRef } : {}),
      ...(s.signKey ? { signKey: resolve(o.source.cwd, s.signKey) } : {}),
      ...(provider
        ? {
            // A refused pull request does not hide the pushes made: told after them, tried again next run.
            pullRequest: (pr) =>
              openOrUpdate(provider, pr).then(
                async (how) => (await this.pullRequestsOwed.set(pr.branch, false), how),
                async (e: unknown) => {
                  await this.pullRequestsOwed.set(pr.branch, true);
                  refused.push(`${pr.branch}: ${errorMessage(e)}`);
                  return 'failed' as const;
                },
              ),
            needsPullRequest: (branch, pushed) => pushed || owed.has(branch) || this.neverProposed(provider, branch, refused),
            planBody: (commit) =>
              planMarkdownOf(top, commit, rev.dir, {
                api: o.api,
                stateDir: o.stateDir,
                state: o.state,
                planOptions: o.planOptions,
                readConcurrency: o.readConcurrency,
              }),
          }
        : {}),
    });
    for (const p of proposals) if (p.pushed || p.pullRequest === 'opened') this.tell(p);
    if (s.pushRef && s.pushRef === o.source.ref && proposals.some((p) => p.pushed)) o.trigger('update');
    if (refused.length > 0) throw new Error(`pull request not opened for ${refused.join('; ')}`);
    return proposals;
  }

  /**
   * An unchanged branch no pull request was ever made for (pushed by `packsync update --push` without
   * one, or by an agent whose state directory is new) gets one; a branch whose pull request a person
   * closed or merged does not. A forge that cannot be asked is told as refused and asked next run.
   */
  private async neverProposed(provider: Provider, branch: string, refused: string[]): Promise<boolean> {
    try {
      return !(await pullRequestExists(provider, branch));
    } catch (e) {
      refused.push(`${branch}: ${errorMessage(e)}`);
      return false;
    }
  }

  private tell(p: Proposal): void {
    const versions = p.changes.map((c) => `${c.key} ${c.from} → ${c.to}`).join(', ');
    const pr = p.pullRequest && p.pullRequest !== 'failed' ? ` (pull request ${p.pullRequest})` : '';
    const message = `${p.title}: pushed ${p.commit.slice(0, 12)} to ${p.branch}${pr}; ${versions}`;
    this.o.logger.info({ branch: p.branch, commit: p.commit }, message);
    this.o.status.event({ reason: 'UpdateProposed', object: `Updates/${p.group}`, message, revision: p.commit });
  }
}

function authorEnv(a: { name: string; email: string }): Record<string, string> {
  return { GIT_AUTHOR_NAME: a.name, GIT_AUTHOR_EMAIL: a.email, GIT_COMMITTER_NAME: a.name, GIT_COMMITTER_EMAIL: a.email };
}

/** The branches still owed a pull request, as a small JSON list beside the state. */
class OwedPullRequests {
  constructor(private readonly file: string) {}

  async read(): Promise<Set<string>> {
    const text = await readFile(this.file, 'utf8').catch(() => '[]');
    try {
      const list: unknown = JSON.parse(text);
      return new Set(Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []);
    } catch {
      return new Set();
    }
  }

  async set(branch: string, owed: boolean): Promise<void> {
    const all = await this.read();
    if (all.has(branch) === owed) return;
    if (owed) all.add(branch);
    else all.delete(branch);
    await writeAtomic(this.file, JSON.stringify([...all].sort()));
  }
}
