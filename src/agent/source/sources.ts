/**
 * Where the agent's revisions come from: a git remote it clones and fetches, or a local directory
 * (a checkout someone else keeps current, e.g. git-sync), optionally behind signature verification.
 * `run` passes its settings as given on the command line; everything built from them lives here.
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { PacksyncError } from '../../util/errors.js';
import { GitSource } from './git-source.js';
import type { GitSourceOptions, SourceRevision } from './git-source.js';
import type { AgentMetrics } from '../http/metrics.js';
import { redactUrl } from './redact-url.js';
import type { StatusTracker } from '../http/status.js';
import { loadTrustedKeys } from './verify-keys.js';
import type { TrustedKeys } from './verify-keys.js';
import { VerifiedSource, verifiableDirectory, verifiableGit } from './verify-source.js';
import type { VerifiableSource, VerifyMode } from './verify-source.js';

export interface PassSource {
  sync: () => Promise<SourceRevision>;
  /** The tracked ref for webhook matching; null for a directory. */
  ref: string | null;
}

export interface SourceSettings {
  /** A git URL (scheme or scp-like) or a directory, relative to `cwd`. */
  source: string;
  ref: string;
  /** Manifests sub-directory inside the source. */
  path?: string;
  cwd: string;
  tokenFile?: string;
  sshKeyFile?: string;
  /** `--allow-insecure-git`: a token may go over plain http://. */
  allowInsecureGit?: boolean;
  /** Apply only revisions signed by a key in the `trustedKeys` directory. */
  verify?: { mode: VerifyMode; trustedKeys: string; allowRollback?: boolean };
  /** Fetch the whole history (the two-person rule reads every commit since the last applied one, docs/policy.md). */
  fullHistory?: boolean;
  env: NodeJS.ProcessEnv;
}

export interface BuiltSource {
  source: PassSource;
  /** The verifying wrapper, when verification is on: readiness and `--once` ask it about the head. */
  verified: VerifiedSource | null;
  /** The directory `--watch` watches; null for a git source. */
  watchDir: string | null;
}

/** A git URL (scheme or scp-like) rather than a local directory. */
export function isGitUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[\w.-]+@[\w.-]+:/.test(s) || /::/.test(s);
}

/** The source as the status shows it: a URL without credentials, or the absolute directory. */
export function sourceIdentity(s: SourceSettings): { source: string; ref: string; path: string } {
  const git = isGitUrl(s.source);
  return { source: git ? redactUrl(s.source) : resolve(s.cwd, s.source), ref: git ? s.ref : '', path: s.path ?? '' };
}

/** The settings a git working copy of the source takes (the pass's checkout, or the update automation's clone). */
export function gitSourceOptions(s: SourceSettings, workDir: string): GitSourceOptions {
  return {
    url: s.source,
    ref: s.ref,
    ...(s.path ? { path: s.path } : {}),
    workDir,
    ...(s.tokenFile ? { tokenFile: resolve(s.cwd, s.tokenFile) } : {}),
    ...(s.sshKeyFile ? { sshKeyFile: resolve(s.cwd, s.sshKeyFile) } : {}),
    ...(s.allowInsecureGit ? { allowInsecure: true } : {}),
    env: s.env,
  };
}

/**
 * Loads the trusted keys first (bad keys fail the start before anything is fetched), then builds
 * the git or directory source and wraps it in verification when asked to.
 */
export async function buildSource(
  s: SourceSettings,
  ctx: { stateDir: string; watch: boolean; status: StatusTracker; metrics: AgentMetrics; logger: Logger },
): Promise<BuiltSource> {
  const verify = s.verify;
  const keys = verify
    ? await loadTrustedKeys({ dir: resolve(s.cwd, verify.trustedKeys), gnupgHome: join(ctx.stateDir, 'gnupg'), env: s.env })
    : null;
  const verifying = (source: VerifiableSource, sourceName: string, k: TrustedKeys, mode: VerifyMode): VerifiedSource =>
    new VerifiedSource({
      mode,
      keys: k,
      source,
      stateDir: ctx.stateDir,
      sourceName,
      ref: s.ref,
      env: s.env,
      status: ctx.status,
      counter: ctx.metrics.sourceVerification,
      logger: ctx.logger,
      ...(verify?.allowRollback ? { allowRollback: true } : {}),
    });
  if (isGitUrl(s.source)) {
    const git = new GitSource({
      ...gitSourceOptions(s, join(ctx.stateDir, 'source')),
      // range and tag modes need the history between revisions (and to tell a rollback from an update).
      ...(verify?.mode === 'range' || verify?.mode === 'tag' || s.fullHistory ? { fullHistory: true } : {}),
    });
    const verified = keys && verify ? verifying(verifiableGit(git), git.displayUrl, keys, verify.mode) : null;
    if (ctx.watch)
      throw new PacksyncError('USAGE', '--watch needs a directory --source (for git sources use --interval, --schedule or the webhook)');
    return { source: { sync: () => (verified ?? git).sync(), ref: s.ref }, verified, watchDir: null };
  }
  const dir = resolve(s.cwd, s.source, s.path ?? '.');
  const st = await stat(dir).catch(() => null);
  if (!st?.isDirectory()) throw new PacksyncError('USAGE', `--source ${s.source} is neither a git URL nor a directory`);
  if (!keys || !verify)
    return { source: { sync: () => Promise.resolve({ dir, revision: null, label: dir }), ref: null }, verified: null, watchDir: dir };
  // A git work tree (git-sync): the verified commit is what is applied, not the files as they lie.
  const sourceDir = resolve(s.cwd, s.source);
  const exportDir = join(ctx.stateDir, 'verified-tree');
  const verified = verifying(
    verifiableDirectory({ sourceDir, ...(s.path ? { path: s.path } : {}), ref: s.ref, keys, exportDir, env: s.env }),
    sourceDir,
    keys,
    verify.mode,
  );
  return { source: { sync: () => verified.sync(), ref: null }, verified, watchDir: dir };
}
