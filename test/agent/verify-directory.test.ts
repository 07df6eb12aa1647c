/**
 * `packsync run --source DIR --verify-mode head` on a git work tree kept up to date by someone else
 * (the git-sync sidecar layout, `current` being a link to the checked-out tree): the signed commit
 * is what gets applied — never uncommitted files lying in the tree — and an unsigned commit is not.
 */
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { deploymentsYaml } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { ALICE as alice, commitAs, signedRepo, verifyingEnv } from '../support/signing.js';
import type { Signer } from '../support/signing.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';

let sim: TestSim;
let repo: TestRepo;
let signed: Signer;
let trusted: string;
let stateDir: string;
let current: string;

interface OnceOut {
  revision: string | null;
  result: string;
  message: string;
}

async function once(state = stateDir): Promise<{ code: number | null; out: OnceOut }> {
  const r = await spawnCli(
    ['run', '--source', current, '--verify-mode', 'head', '--trusted-keys', trusted, '--once', '--log-format', 'json'],
    verifyingEnv(sim, state),
  ).done;
  const last =
    r.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{"revision"'))
      .pop() ?? 'null';
  return { code: r.code, out: JSON.parse(last) as OnceOut };
}

beforeAll(async () => {
  sim = await startTestSimulator();
  ({ repo, trusted, signer: signed } = await signedRepo());
  stateDir = await tempDir('packsync-verify-dir-');
  current = join(await tempDir('packsync-gitsync-'), 'current');
  await symlink(repo.work, current);
});

describe('run --source DIR (git work tree) --verify-mode head', () => {
  it('applies nothing when the head is unsigned and no revision was ever verified', async () => {
    const r = await once(await tempDir('packsync-verify-fresh-'));
    expect(r.code).toBe(1);
    expect(r.out.result).toBe('Failed');
    expect(await sim.writes()).toEqual([]);
  });

  it('applies the signed commit checked out in the work tree', async () => {
    const commit = await commitAs(repo.work, alice, signed, 'signed manifests');
    const r = await once();
    expect(r.code).toBe(0);
    expect(r.out).toMatchObject({ revision: commit, result: 'Succeeded' });
    expect((await sim.writes()).length).toBeGreaterThan(0);
  });

  it('applies the committed tree, not uncommitted edits lying in the work tree', async () => {
    const before = (await sim.writes()).length;
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    const r = await once();
    expect(r.code).toBe(0);
    expect((await sim.writes()).length).toBe(before);
  });

  it('refuses an unsigned commit (exit 1, nothing written) and applies the next signed one', async () => {
    const before = (await sim.writes()).length;
    const unsigned = await commitAs(repo.work, alice, null, 'stop 7-Zip, unsigned');
    const r = await once();
    expect(r.code).toBe(1);
    expect(r.out.revision).toBe(unsigned);
    expect((await sim.writes()).length).toBe(before);
    await commitAs(repo.work, alice, signed, 'signed again');
    const ok = await once();
    expect(ok.code).toBe(0);
    expect((await sim.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/stop']);
  });

  it('run --once on a refused head prints Failed naming the refused revision, agreeing with its exit 1', async () => {
    const verifiedHead = await git(repo.work, 'rev-parse', 'HEAD');
    const unsigned = await commitAs(repo.work, alice, null, 'unsigned again');
    const r = await once();
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({ revision: unsigned, result: 'Failed' });
    expect(r.out.message).toContain(`revision ${unsigned} is not applied`);
    expect(r.out.message).toContain(`the last verified revision ${verifiedHead} stays applied`);
  });
});
