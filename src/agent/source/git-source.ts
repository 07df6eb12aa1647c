/**
 * The git source: a working copy in the state directory, fetched (shallow where the ref allows)
 * and checked out detached at the tracked branch, tag or pinned commit. Credentials travel only in
 * the child's environment (an `http.extraHeader` through GIT_CONFIG_*, or GIT_SSH_COMMAND), never in
 * the URL or the argument list, so `ps`, logs and git's own error messages cannot show them.
 */
import { mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { simpleGit } from 'simple-git';
import type { SimpleGit } from 'simple-git';
import { PacksyncError } from '../../util/errors.js';

export class SourceError extends PacksyncError<
  'SOURCE_INVALID' | 'SOURCE_FETCH_FAILED' | 'SOURCE_REF_NOT_FOUND' | 'SOURCE_PATH_INVALID' | 'SOURCE_UNVERIFIED'
> {}

export interface SourceRevision {
  /** Directory holding the manifests (the checkout, or its `--path` sub-directory). */
  dir: string;
  /** The exact commit (or directory digest, for a directory source). */
  revision: string | null;
  /** Human label, e.g. `main@1a2b3c4`. */
  label: string;
  /** Who signed the revision, when signatures are verified (SSH principal, or OpenPGP uid and fingerprint). */
  signer?: string | null;
}

export interface GitSourceOptions {
  url: string;
  ref: string;
  path?: string;
  workDir: string;
  tokenFile?: string;
  sshKeyFile?: string;
  env: NodeJS.ProcessEnv;
  /** Fetch whole history instead of `--depth 1` (signature verification in `range` mode walks it). */
  fullHistory?: boolean;
  /** `--allow-insecure-git`: send the token over plain `http://` anyway (a lab, a sidecar proxy on loopback). */
  allowInsecure?: boolean;
}

const SHA_RE = /^[0-9a-f]{40}$/;

/** Refuses transports and option smuggling that would run commands or change git's behaviour. */
export function validateRemote(url: string): void {
  const u = url.trim();
  if (u !== url || u.length === 0) throw new SourceError('SOURCE_INVALID', 'the git URL is empty or has surrounding whitespace');
  if (u.startsWith('-')) throw new SourceError('SOURCE_INVALID', 'the git URL must not start with "-" (it would be read as an option)');
  if (/[\0\r\n]/.test(u)) throw new SourceError('SOURCE_INVALID', 'the git URL contains control characters');
  if (/^[a-z][a-z0-9+.-]*::/i.test(u))
    throw new SourceError(
      'SOURCE_INVALID',
      `the git transport "${u.split('::')[0] ?? ''}::" is refused (remote helpers like ext:: can run commands)`,
    );
  if (/(^|\s)--?(upload-pack|receive-pack|exec|config|c)\b/i.test(u))
    throw new SourceError('SOURCE_INVALID', 'the git URL smuggles a git option');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(u)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!['https', 'http', 'ssh', 'git', 'file'].includes(scheme))
      throw new SourceError('SOURCE_INVALID', `the git URL scheme "${scheme}" is not supported (use https, ssh, git or file)`);
    if (scheme !== 'file') {
      const parsed = new URL(u);
      if (parsed.password || (parsed.username && scheme.startsWith('http'))) {
        throw new SourceError(
          'SOURCE_INVALID',
          'credentials in the git URL are refused: use --git-token-file or PACKSYNC_GIT_TOKEN so they never reach logs',
        );
      }
    }
  }
}

export function validateRef(ref: string): void {
  if (
    ref.length === 0 ||
    ref.length > 255 ||
    ref.startsWith('-') ||
    ref.includes('..') ||
    /[\0-\x20~^:?*[\\]|@\{/.test(ref) ||
    ref.endsWith('.lock') ||
    ref.endsWith('/') ||
    ref.endsWith('.')
  ) {
    throw new SourceError('SOURCE_INVALID', `--ref "${ref.replace(/[^\x21-\x7e]/g, '?')}" is not a valid branch, tag or commit`);
  }
}

export class GitSource {
  private git: SimpleGit | null = null;

  constructor(private readonly o: GitSourceOptions) {
    validateRemote(o.url);
    validateRef(o.ref);
    // A token over plain http:// is readable by anyone on the path (docs/agent.md, "Sources").
    if (/^http:\/\//i.test(o.url) && (o.tokenFile || o.env.PACKSYNC_GIT_TOKEN) && !o.allowInsecure)
      throw new SourceError(
        'SOURCE_INVALID',
        'a git token would be sent over plain http://, readable on the network: use an https:// URL (or --allow-insecure-git to send it anyway)',
      );
    if (o.path && (o.path.split(/[\\/]/).includes('..') || o.path.startsWith('/')))
      throw new SourceError('SOURCE_PATH_INVALID', `--path "${o.path}" must be a relative path inside the repository`);
  }

  /** The URL as it may be shown: never carries credentials (they are refused above). */
  get displayUrl(): string {
    return this.o.url;
  }

  private async env(): Promise<Record<string, string>> {
    const base: Record<string, string> = {
      PATH: this.o.env.PATH ?? '/usr/bin:/bin',
      HOME: this.o.env.HOME ?? this.o.workDir,
      GIT_TERMINAL_PROMPT: '0',
      // Remote helpers that run commands stay off whatever the user's git config says.
      GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh',
      GIT_CONFIG_NOSYSTEM: '1',
    };
    const token = this.o.tokenFile ? (await readFile(this.o.tokenFile, 'utf8')).trim() : this.o.env.PACKSYNC_GIT_TOKEN;
    if (token) {
      base.GIT_CONFIG_COUNT = '1';
      base.GIT_CONFIG_KEY_0 = 'http.extraHeader';
      base.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
    }
    const key = this.o.sshKeyFile ?? this.o.env.PACKSYNC_GIT_SSH_KEY_FILE;
    if (key)
      base.GIT_SSH_COMMAND = `ssh -i '${key.replace(/'/g, '')}' -o IdentitiesOnly=yes -o StrictHostKeyChecking=accept-new -o BatchMode=yes`;
    return base;
  }

  /** The environment git runs in for this source (credentials included): for the update automation's push. */
  gitEnvironment(): Promise<Record<string, string>> {
    return this.env();
  }

  private async repo(): Promise<SimpleGit> {
    if (this.git) return this.git;
    const dir = this.o.workDir;
    await mkdir(dir, { recursive: true });
    // Only the two env settings packsync itself sets (token header, ssh key) are unlocked; user
    // input never reaches them (URL and ref are validated above and passed as plain arguments).
    const env = await this.env();
    const git = simpleGit({
      baseDir: dir,
      maxConcurrentProcesses: 1,
      allowEnvironment: Object.keys(env),
      unsafe: { allowUnsafeConfigEnvCount: true, allowUnsafeSshCommand: true },
    }).env(env);
    const isRepo = await stat(join(dir, '.git')).then(
      () => true,
      () => false,
    );
    if (!isRepo) {
      await git.init();
      await git.addRemote('origin', this.o.url);
    } else {
      await git.remote(['set-url', 'origin', this.o.url]);
    }
    this.git = git;
    return git;
  }

  async sync(): Promise<SourceRevision> {
    const git = await this.repo();
    const ref = this.o.ref;
    try {
      if (SHA_RE.test(ref)) {
        await git
          .fetch(['--no-tags', 'origin', ref])
          .catch(async () => git.fetch(['--no-tags', 'origin', '+refs/heads/*:refs/remotes/origin/*']));
        await git.raw(['cat-file', '-e', `${ref}^{commit}`]).catch(() => {
          throw new SourceError('SOURCE_REF_NOT_FOUND', `commit ${ref} is not in ${this.displayUrl}`);
        });
        await git.raw(['checkout', '--force', '--detach', ref]);
      } else {
        const depth = await this.depthArgs();
        const branch = await git.fetch([...depth, '--no-tags', 'origin', `+refs/heads/${ref}:refs/packsync/target`]).then(
          () => null,
          (e: unknown) => (e instanceof Error ? e : new Error(String(e as string))),
        );
        if (branch !== null) {
          // Only "no such ref" means try a tag; auth, network or server errors are fetch failures.
          if (!isMissingRef(branch)) throw branch;
          await git.fetch([...depth, '--no-tags', 'origin', `+refs/tags/${ref}:refs/packsync/target`]).catch((e: unknown) => {
            if (isMissingRef(e)) throw new SourceError('SOURCE_REF_NOT_FOUND', `no branch or tag "${ref}" in ${this.displayUrl}`);
            throw e;
          });
        }
        await git.raw(['checkout', '--force', '--detach', 'refs/packsync/target']);
      }
      await git.raw(['clean', '-ffdxq']);
    } catch (e) {
      if (e instanceof SourceError) throw e;
      throw new SourceError('SOURCE_FETCH_FAILED', `cannot fetch ${this.displayUrl} (${ref}): ${firstLine(e)}`);
    }
    const revision = (await git.revparse(['HEAD'])).trim();
    const dir = await this.subdir();
    return { dir, revision, label: `${ref}@${revision.slice(0, 7)}` };
  }

  /** Shallow by default; whole history for range verification (unshallowing an earlier shallow copy). */
  private async depthArgs(): Promise<string[]> {
    if (!this.o.fullHistory) return ['--depth', '1'];
    const shallow = await stat(join(this.o.workDir, '.git', 'shallow')).then(
      () => true,
      () => false,
    );
    return shallow ? ['--unshallow'] : [];
  }

  /** The working copy's directory (where git runs). */
  get workDir(): string {
    return this.o.workDir;
  }

  /**
   * Checks out an earlier revision already in the working copy (the last verified one, when the
   * newest is refused) and keeps a ref on it so git's garbage collection never drops it.
   */
  async checkout(revision: string): Promise<SourceRevision> {
    if (!SHA_RE.test(revision)) throw new SourceError('SOURCE_INVALID', `not a commit id: ${revision.slice(0, 60)}`);
    const git = await this.repo();
    await git.raw(['checkout', '--force', '--detach', revision]);
    await git.raw(['clean', '-ffdxq']);
    await git.raw(['update-ref', 'refs/packsync/verified', revision]);
    return { dir: await this.subdir(), revision, label: `${this.o.ref}@${revision.slice(0, 7)}` };
  }

  private async subdir(): Promise<string> {
    const root = await realpath(this.o.workDir);
    const target = resolve(root, this.o.path ?? '.');
    const real = await realpath(target).catch(() => {
      throw new SourceError('SOURCE_PATH_INVALID', `--path "${this.o.path ?? '.'}" does not exist in the repository`);
    });
    const rel = relative(root, real);
    if (rel.startsWith('..') || rel.split(sep).includes('..'))
      throw new SourceError('SOURCE_PATH_INVALID', `--path "${this.o.path ?? ''}" leaves the repository`);
    return real;
  }
}

function isMissingRef(e: unknown): boolean {
  return /couldn't find remote ref|not our ref|no such ref|unknown revision/i.test(e instanceof Error ? e.message : String(e));
}

function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  // git's stderr can quote the remote; credentials are refused earlier, so only trim it.
  return (
    msg
      .split('\n')
      .find((l) => l.trim().length > 0)
      ?.trim()
      .slice(0, 300) ?? 'git failed'
  );
}
