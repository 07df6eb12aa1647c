/**
 * Misconfigured verification is loud: the agent refuses to start with a clear message and exit
 * code 1, instead of running without the checks the operator asked for.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findProgram } from '../../src/agent/source/verify-keys.js';
import { tempDir } from '../support/repo.js';
import { sshKey, writeAllowedSigners } from '../support/signing.js';
import { spawnCli } from '../support/spawn-cli.js';

let base: string;
let env: Record<string, string>;
let sshOnly: string;

async function runAgent(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const r = await spawnCli(['run', '--source', join(base, 'manifests'), '--once', ...args], { ...env, ...extraEnv }).done;
  return { code: r.code, stderr: r.stderr };
}

beforeAll(async () => {
  base = await tempDir('packsync-verify-config-');
  await mkdir(join(base, 'manifests'));
  await mkdir(join(base, 'empty'));
  env = {
    PACKSYNC_API_URL: 'http://127.0.0.1:9',
    PACKSYNC_API_KEY: 'unused-key-for-config-tests',
    PACKSYNC_STATE_DIR: join(base, 'state'),
    HOME: base,
  };
  sshOnly = join(base, 'ssh');
  await mkdir(sshOnly);
  await writeAllowedSigners(sshOnly, [{ principal: 'alice@example.com', key: await sshKey(base, 'alice') }]);
});

describe('run --verify-mode misconfiguration', () => {
  it('refuses --verify-mode without --trusted-keys', async () => {
    const r = await runAgent(['--verify-mode', 'head']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--verify-mode needs --trusted-keys');
  });

  it('refuses --trusted-keys without --verify-mode', async () => {
    const r = await runAgent(['--trusted-keys', sshOnly]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--trusted-keys needs --verify-mode');
  });

  it('refuses an empty or missing key directory', async () => {
    const empty = await runAgent(['--verify-mode', 'head', '--trusted-keys', join(base, 'empty')]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('holds no allowed_signers file and no *.asc key');
    const missing = await runAgent(['--verify-mode', 'range', '--trusted-keys', join(base, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('is not a readable directory');
  });

  it('refuses an empty allowed_signers file and an *.asc that is no key', async () => {
    const dir = join(base, 'bad');
    await mkdir(dir);
    await writeFile(join(dir, 'allowed_signers'), '# nobody yet\n');
    const r = await runAgent(['--verify-mode', 'head', '--trusted-keys', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('allowed_signers is empty');
    const asc = join(base, 'bad-asc');
    await mkdir(asc);
    await writeFile(join(asc, 'alice.asc'), 'not a key\n');
    const r2 = await runAgent(['--verify-mode', 'head', '--trusted-keys', asc]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('alice.asc is not an OpenPGP public key gpg can import');
  });

  it('refuses when ssh-keygen or gpg is missing for a key format in the directory', async () => {
    // A PATH with git only (node itself is started by absolute path).
    const bin = join(base, 'bin');
    await mkdir(bin);
    await symlink((await findProgram('git', process.env.PATH))!, join(bin, 'git'));
    const r = await runAgent(['--verify-mode', 'head', '--trusted-keys', sshOnly], { PATH: bin });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ssh-keygen is not installed');
    const asc = join(base, 'asc');
    await mkdir(asc);
    await writeFile(join(asc, 'alice.asc'), '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n-----END PGP PUBLIC KEY BLOCK-----\n');
    const r2 = await runAgent(['--verify-mode', 'head', '--trusted-keys', asc], { PATH: bin });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('gpg is not installed');
  });
});
