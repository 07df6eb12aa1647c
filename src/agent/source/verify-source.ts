/**
 * A source whose revisions are applied only when signed by a trusted key (`run --verify-mode`).
 * Wraps the git source or a git-sync work tree: each pass syncs, then checks the new revision
 * (`head`: the commit; `tag`: the tag of `--ref`; `range`: every commit since the last verified
 * one). A refused revision is never handed to the loop: the last verified revision's manifests
 * are, so drift keeps being reconciled against what was trusted (or nothing runs if none was).
 * Each revision is judged once (the verdict is cached): one event and one metric per revision.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, realpath, rename, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import type { GitSource, SourceRevision } from './git-source.js';
import { SourceError } from './git-source.js';
import type { StatusTracker } from '../http/status.js';
import type { TrustedKeys } from './verify-keys.js';
import { runGit, verifyObject } from './verify-signature.js';
import type { Verdict } from './verify-signature.js';
import { loadVerifiedRevision, saveVerifiedRevision } from './verify-state.js';
import type { VerifiedRevision } from './verify-state.js';

export type VerifyMode = 'head' | 'tag' | 'range';

/** What verification needs from a source: sync the head, where git runs, and older revisions. */
export interface VerifiableSource {
  /** Brings the tracked ref up to date; `revision` is the commit that would be applied. */
  sync: () => Promise<{ revision: string; repoDir: string }>;
  /** The ref whose annotated tag `tag` mode checks. */
  tagRef: string;
  /** The manifests of a verified revision, or null when the repository no longer has it. */
  materialise: (revision: string) => Promise<SourceRevision | null>;
}

export interface VerifiedSourceOptions {
  mode: VerifyMode;
  keys: TrustedKeys;
  source: VerifiableSource;
  stateDir: string;
  /** The source as it may be shown (URL without credentials, or the directory). */
  sourceName: string;
  ref: string;
  env: NodeJS.ProcessEnv;
  status: StatusTracker;
  counter: Counter<'result'>;
  logger: Logger;
  /** `--allow-rollback`: apply a signed revision that does not descend from the last verified one. */
  allowRollback?: boolean;
}

interface Judgement {
  ok: boolean;
  signer: string | null;
  message: string;
}

export class VerifiedSource {
  private last: VerifiedRevision | null = null;
  private loaded = false;
  private readonly verdicts = new Map<string, Judgement>();
  /** False while the tracked head is refused (readiness and `--once` report it). */
  headVerified = false;

  constructor(private readonly o: VerifiedSourceOptions) {}

  async sync(): Promise<SourceRevision> {
    const o = this.o;
    if (!this.loaded) {
      this.last = await loadVerifiedRevision(o.stateDir, o.sourceName, o.ref);
      if (this.last) o.status.recordSigner(this.last.revision, this.last.signer);
      this.loaded = true;
    }
    const head = await o.source.sync();
    const base = o.mode === 'range' && this.last && this.last.revision !== head.revision ? this.last.revision : null;
    // A tag can move to a new tag object on the same commit (re-signed): the tag object is part of the key.
    const tagObject =
      o.mode === 'tag'
        ? (await runGit(o.keys, head.repoDir, ['rev-parse', '--verify', '--quiet', o.source.tagRef], o.env)).stdout.trim()
        : '';
    const since = this.last && this.last.revision !== head.revision ? this.last.revision : null;
    const key = `${o.mode}:${tagObject}:${since ?? ''}..${head.revision}`;
    let j = this.verdicts.get(key);
    if (!j) {
      j = (await this.rollback(head.repoDir, head.revision, since)) ?? (await this.judge(head.repoDir, head.revision, base));
      this.verdicts.set(key, j);
      if (this.verdicts.size > 100) this.verdicts.delete(this.verdicts.keys().next().value!);
      o.counter.inc({ result: j.ok ? 'verified' : 'failed' });
      if (j.ok) o.logger.info({ revision: head.revision, signer: j.signer }, `revision signed by ${j.signer ?? '?'}: verified`);
      else {
        o.logger.warn({ revision: head.revision, reason: 'VerificationFailed' }, j.message);
        o.status.event({ reason: 'VerificationFailed', object: `Source/${o.sourceName}`, message: j.message, revision: head.revision });
      }
    }
    if (j.ok) {
      this.headVerified = true;
      o.status.sourceVerified(head.revision, j.signer);
      if (this.last?.revision !== head.revision) {
        this.last = { source: o.sourceName, ref: o.ref, revision: head.revision, signer: j.signer, verifiedAt: new Date().toISOString() };
        await saveVerifiedRevision(o.stateDir, this.last);
      }
      const m = await o.source.materialise(head.revision);
      if (!m) throw new SourceError('SOURCE_FETCH_FAILED', `revision ${head.revision} vanished from the working copy`);
      return { ...m, signer: j.signer };
    }
    this.headVerified = false;
    o.status.sourceRefused(head.revision, j.message);
    const fallback = this.last ? await o.source.materialise(this.last.revision) : null;
    if (!fallback || !this.last) {
      const why = this.last
        ? `the last verified revision ${this.last.revision} is no longer in the repository`
        : 'no revision was verified yet';
      throw new SourceError('SOURCE_UNVERIFIED', `${j.message}; ${why}, so nothing is applied`);
    }
    return { ...fallback, signer: this.last.signer };
  }

  /**
   * A rollback by force-push (docs/agent.md, "Rollbacks"): in `range` and `tag` modes a revision that
   * does not descend from the last verified one is refused like an unsigned one, so someone with push
   * rights but no key cannot choose which old trusted revision runs. A revert is a new commit on top
   * (signed by a trusted key, it passes); `--allow-rollback` lets an operator go back on purpose.
   */
  private async rollback(repoDir: string, head: string, since: string | null): Promise<Judgement | undefined> {
    const o = this.o;
    if (!since || o.allowRollback || o.mode === 'head') return undefined;
    const r = await runGit(o.keys, repoDir, ['merge-base', '--is-ancestor', since, head], o.env);
    if (r.code === 0) return undefined;
    const why =
      r.code === 1
        ? `it does not descend from the last verified revision ${since} (a rollback or a force-push)`
        : `the repository cannot show that it descends from the last verified revision ${since} (its history is missing; for git-sync use --depth 0)`;
    const message = `revision ${head} is not applied: ${why}; commit a revert signed by a trusted key on top of ${since.slice(0, 12)}, or run with --allow-rollback to go back on purpose`;
    return { ok: false, signer: null, message };
  }

  private async judge(repoDir: string, head: string, base: string | null): Promise<Judgement> {
    const o = this.o;
    const refuse = (why: string): Judgement => ({ ok: false, signer: null, message: `revision ${head} is not applied: ${why}` });
    let v: Verdict;
    if (o.mode === 'tag') {
      const type = await runGit(o.keys, repoDir, ['cat-file', '-t', o.source.tagRef], o.env);
      if (type.code !== 0) return refuse(`--ref ${o.ref} has no tag in the repository`);
      if (type.stdout.trim() !== 'tag')
        return refuse(`--ref ${o.ref} is not an annotated, signed tag (it names a ${type.stdout.trim() || 'non-tag'})`);
      // The signed tag object names itself: one stored under another name (a candidate tag pushed
      // as \`release\`) is not the release a trusted key signed (security review 3 finding 7).
      const named = /^tag (.+)$/m.exec((await runGit(o.keys, repoDir, ['cat-file', 'tag', o.source.tagRef], o.env)).stdout)?.[1];
      const want = o.ref.replace(/^refs\/tags\//, '');
      if (named !== want)
        return refuse(`the tag at --ref ${o.ref} was signed as "${named ?? '?'}", not as "${want}" (a tag moved under another name)`);
      const peeled = await runGit(o.keys, repoDir, ['rev-parse', `${o.source.tagRef}^{commit}`], o.env);
      if (peeled.stdout.trim() !== head)
        return refuse(`tag ${o.ref} points at ${peeled.stdout.trim().slice(0, 40) || '?'}, not at the checked-out commit`);
      v = await verifyObject(o.keys, repoDir, 'tag', o.source.tagRef, o.env);
      if (!v.ok) return refuse(v.why.replace(`tag ${o.source.tagRef}`, `tag ${o.ref}`));
      return { ok: true, signer: v.signer, message: '' };
    }
    let commits = [head];
    if (o.mode === 'range' && base) {
      const list = await runGit(o.keys, repoDir, ['rev-list', '--reverse', `${base}..${head}`], o.env);
      if (list.code !== 0)
        return refuse(
          `cannot list the commits between the last verified revision ${base} and it (the repository needs their history; for git-sync use --depth 0)`,
        );
      commits = list.stdout.split('\n').filter((l) => /^[0-9a-f]{40,64}$/.test(l));
      // A head behind the last verified one (a rollback allowed by --allow-rollback) is checked itself.
      if (!commits.includes(head)) commits.push(head);
    }
    let signer: string | null = null;
    for (const [i, c] of commits.entries()) {
      v = await verifyObject(o.keys, repoDir, 'commit', c, o.env);
      if (!v.ok) return refuse(commits.length > 1 ? `${v.why} (commit ${i + 1} of ${commits.length} since ${base ?? '?'})` : v.why);
      if (c === head) signer = v.signer;
    }
    return { ok: true, signer, message: '' };
  }
}

/** The agent's own git working copy: the head is checked out by sync; older revisions by checkout. */
export function verifiableGit(git: GitSource): VerifiableSource {
  let current: SourceRevision | null = null;
  return {
    sync: async () => {
      current = await git.sync();
      return { revision: current.revision!, repoDir: git.workDir };
    },
    tagRef: 'refs/packsync/target',
    materialise: async (revision) => {
      if (current?.revision === revision) return current;
      current = await git.checkout(revision).catch(() => null);
      return current;
    },
  };
}

export interface VerifiableDirectoryOptions {
  /** The source directory (a git work tree, e.g. git-sync's `current` link). */
  sourceDir: string;
  path?: string;
  ref: string;
  keys: TrustedKeys;
  /** Where verified revisions are exported to (inside the state directory). */
  exportDir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A git work tree someone else keeps up to date (git-sync). Its files are never loaded directly:
 * the verified commit's tree is exported into the state directory and loaded from there, so what
 * is applied is exactly what was signed, not whatever sits in the work tree.
 */
export function verifiableDirectory(o: VerifiableDirectoryOptions): VerifiableSource {
  let repoDir = '';
  let rel = '';
  return {
    sync: async () => {
      // Resolved once per pass: git-sync swaps the link atomically, this pass keeps one tree.
      const real = await realpath(o.sourceDir).catch(() => {
        throw new SourceError('SOURCE_PATH_INVALID', `--source ${o.sourceDir} does not exist`);
      });
      const top = await runGit(o.keys, real, ['rev-parse', '--show-toplevel'], o.env);
      if (top.code !== 0)
        throw new SourceError(
          'SOURCE_INVALID',
          `--source ${o.sourceDir} is not a git work tree, so its signatures cannot be verified: ${top.stderr.trim().split('\n')[0] ?? ''}`,
        );
      repoDir = top.stdout.trim();
      rel = relative(repoDir, resolve(real, o.path ?? '.'));
      if (rel.startsWith('..') || rel.split(sep).includes('..'))
        throw new SourceError('SOURCE_PATH_INVALID', `--path "${o.path ?? ''}" leaves the repository`);
      const head = await runGit(o.keys, repoDir, ['rev-parse', '--verify', 'HEAD^{commit}'], o.env);
      if (head.code !== 0) throw new SourceError('SOURCE_REF_NOT_FOUND', `${o.sourceDir} has no commit checked out`);
      return { revision: head.stdout.trim(), repoDir };
    },
    tagRef: `refs/tags/${o.ref}`,
    materialise: async (revision) => {
      const dest = join(o.exportDir, revision);
      const have = await readdir(dest).catch(() => null);
      if (!have) {
        await rm(`${dest}.tmp`, { recursive: true, force: true });
        await mkdir(`${dest}.tmp`, { recursive: true });
        const ok = await exportTree(o.keys.gitProgram, repoDir, revision, `${dest}.tmp`, o.env);
        if (!ok) return null;
        await rename(`${dest}.tmp`, dest);
        // Only the revision in force is kept.
        for (const d of await readdir(o.exportDir)) if (d !== revision) await rm(join(o.exportDir, d), { recursive: true, force: true });
      }
      const dir = resolve(dest, rel);
      const exists = await readdir(dir).then(
        () => true,
        () => false,
      );
      if (!exists) throw new SourceError('SOURCE_PATH_INVALID', `--path "${o.path ?? '.'}" does not exist in revision ${revision}`);
      return { dir, revision, label: `${o.sourceDir}@${revision.slice(0, 7)}` };
    },
  };
}

/** `git archive | tar -x`: the committed tree, not the work tree's files. */
function exportTree(gitProgram: string, repoDir: string, revision: string, dest: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const childEnv = { PATH: env.PATH ?? '/usr/bin:/bin', HOME: dest, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };
  return new Promise((done) => {
    const archive = spawn(gitProgram, ['archive', '--format=tar', revision], {
      cwd: repoDir,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const tar = spawn('tar', ['-x', '-C', dest], { env: childEnv, stdio: ['pipe', 'ignore', 'ignore'] });
    archive.stdout.pipe(tar.stdin);
    tar.stdin.on('error', () => undefined);
    void Promise.all([exitOf(archive), exitOf(tar)]).then(([a, t]) => done(a === 0 && t === 0));
  });
}

/** A child's exit code, once, whether it exits or fails to start. */
function exitOf(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((r) => {
    let settled = false;
    const once = (code: number | null): void => {
      if (settled) return;
      settled = true;
      r(code ?? 1);
    };
    child.once('error', () => once(1));
    child.once('close', once);
  });
}
