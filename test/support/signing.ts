/**
 * Real signing keys and signed commits for verification tests: `ssh-keygen -t ed25519` keys and
 * `gpg --quick-gen-key` keys in a throwaway GNUPGHOME, commits and tags made by real git.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import type { TestRepo } from './git.js';
import { startAgent } from './agent-process.js';
import type { RunningAgent } from './agent-process.js';
import { deploymentsYaml, manifestRepo } from './manifests.js';
import { tempDir } from './temp-dir.js';

const run = promisify(execFile);

export interface Person {
  name: string;
  email: string;
}

export type Signer = { format: 'ssh'; keyFile: string } | { format: 'openpgp'; fingerprint: string; gnupgHome: string } | null;

export interface SshKey {
  keyFile: string;
  publicLine: string;
  /** `SHA256:…` as ssh-keygen prints it. */
  fingerprint: string;
}

export async function sshKey(dir: string, name: string): Promise<SshKey> {
  const keyFile = join(dir, name);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', keyFile]);
  const publicLine = (await readFile(`${keyFile}.pub`, 'utf8')).trim();
  const fingerprint = (await run('ssh-keygen', ['-l', '-f', `${keyFile}.pub`])).stdout.split(' ')[1] ?? '';
  return { keyFile, publicLine, fingerprint };
}

export interface GpgKey {
  fingerprint: string;
  /** The ASCII-armoured public key. */
  armored: string;
  gnupgHome: string;
}

/** A key in a throwaway GNUPGHOME (never the user's keyring). */
export async function gpgKey(gnupgHome: string, person: Person): Promise<GpgKey> {
  await mkdir(gnupgHome, { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH ?? '', GNUPGHOME: gnupgHome, HOME: gnupgHome };
  await run('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', `${person.name} <${person.email}>`, 'ed25519', 'sign', 'never'], {
    env,
  });
  const list = (await run('gpg', ['--batch', '--with-colons', '--list-keys', person.email], { env })).stdout;
  const fingerprint = /^fpr:+([0-9A-F]+):/m.exec(list)?.[1] ?? '';
  const armored = (await run('gpg', ['--batch', '--armor', '--export', fingerprint], { env })).stdout;
  return { fingerprint, armored, gnupgHome };
}

/** Stops the gpg-agent a throwaway GNUPGHOME started (signing needs it). */
export async function stopGpgAgent(gnupgHome: string): Promise<void> {
  await run('gpgconf', ['--kill', 'gpg-agent'], { env: { PATH: process.env.PATH ?? '', GNUPGHOME: gnupgHome } }).catch(() => undefined);
}

/** git as `who`, signing with `signer` (or not at all). */
export async function gitAs(cwd: string, who: Person, signer: Signer, ...args: string[]): Promise<string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: cwd,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
  };
  const config: string[] = [];
  if (signer?.format === 'ssh') config.push('-c', 'gpg.format=ssh', '-c', `user.signingkey=${signer.keyFile}`);
  if (signer?.format === 'openpgp') {
    config.push('-c', 'gpg.format=openpgp', '-c', `user.signingkey=${signer.fingerprint}`);
    env.GNUPGHOME = signer.gnupgHome;
  }
  const { stdout } = await run('git', [...config, ...args], { cwd, env });
  return stdout.trim();
}

/** Commits everything in `work` as `who` (signed when `signer` is set); returns the commit id. */
export async function commitAs(work: string, who: Person, signer: Signer, message: string): Promise<string> {
  await gitAs(work, who, null, 'add', '-A');
  await gitAs(work, who, signer, 'commit', '-q', '--allow-empty', ...(signer ? ['-S'] : ['--no-gpg-sign']), '-m', message);
  return gitAs(work, who, null, 'rev-parse', 'HEAD');
}

/** Writes `allowed_signers` binding each principal to its key. */
export async function writeAllowedSigners(dir: string, entries: { principal: string; key: SshKey }[]): Promise<void> {
  await writeFile(join(dir, 'allowed_signers'), entries.map((e) => `${e.principal} ${e.key.publicLine}`).join('\n') + '\n');
}

export const ALICE: Person = { name: 'Alice', email: 'alice@example.com' };

export interface SignedRepo {
  repo: TestRepo;
  /** The `--trusted-keys` directory: `allowed_signers` trusting `key` as alice@example.com. */
  trusted: string;
  key: SshKey;
  /** Signs as Alice's `key`. */
  signer: Signer;
}

/** The manifest repository, and Alice's ssh key trusted under her e-mail (the key file kept outside the trusted directory). */
export async function signedRepo(): Promise<SignedRepo> {
  const key = await sshKey(await tempDir('packsync-keys-'), 'alice');
  const trusted = await tempDir('packsync-trusted-');
  await writeAllowedSigners(trusted, [{ principal: ALICE.email, key }]);
  return { repo: await manifestRepo(), trusted, key, signer: { format: 'ssh', keyFile: key.keyFile } };
}

/**
 * The environment of a verifying agent: the simulator, and `stateDir` as its state and HOME. No
 * GNUPGHOME: the agent must use its own keyring, never the signer's.
 */
export function verifyingEnv(sim: { url: string; key: string }, stateDir: string): Record<string, string> {
  return { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir };
}

/** Writes deployments.yaml with 7-Zip `state` in `work` and commits it as `who`, signed by `signer`; returns the commit. */
export async function commitDeployments(
  work: string,
  who: Person,
  signer: Signer,
  state: 'running' | 'stopped',
  message: string,
): Promise<string> {
  await writeFile(join(work, 'deployments.yaml'), deploymentsYaml({ state }));
  return commitAs(work, who, signer, message);
}

/** `packsync run` following `repo` at `ref`, verifying in `mode` against the keys in `trusted`; its state and HOME are `stateDir`. */
export function startVerifyingAgent(
  sim: { url: string; key: string },
  repo: TestRepo,
  o: { mode: 'head' | 'range' | 'tag'; trusted: string; stateDir: string; ref?: string; args?: string[] },
): Promise<RunningAgent> {
  return startAgent(
    ['--source', repo.fileUrl, '--ref', o.ref ?? 'main', '--verify-mode', o.mode, '--trusted-keys', o.trusted, ...(o.args ?? [])],
    verifyingEnv(sim, o.stateDir),
    o.stateDir,
  );
}

/** The SourceVerified condition of an agent status. */
export function sourceVerified(s: AgentStatus): AgentStatus['conditions'][number] | undefined {
  return s.conditions.find((c) => c.type === 'SourceVerified');
}
