/**
 * `packsync run --verify-mode tag`: the annotated tag named by `--ref` must be signed by a trusted
 * key under its tagger's principal. A signed release tag is applied; the tag moved to a commit with
 * an unsigned tag is refused and the signed release stays in force.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../support/agent-process.js';
import { git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { deploymentsYaml } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { ALICE as alice, commitAs, gitAs, signedRepo, sourceVerified as verified, startVerifyingAgent } from '../support/signing.js';
import type { Signer } from '../support/signing.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let repo: TestRepo;
let agent: RunningAgent;
let signed: Signer;
let release: string;

/** Tags HEAD as `release` (signed or not, always annotated) and force-pushes the tag. */
async function tagRelease(signer: Signer, message: string): Promise<void> {
  await gitAs(repo.work, alice, signer, 'tag', '-f', ...(signer ? ['-s'] : ['-a', '--no-sign']), '-m', message, 'release');
  await git(repo.work, 'push', '-q', '--force', 'origin', 'HEAD:main', 'refs/tags/release');
}

beforeAll(async () => {
  sim = await startTestSimulator();
  const setup = await signedRepo();
  ({ repo, signer: signed } = setup);
  const trusted = setup.trusted;
  // In tag mode the commits themselves need no signature: the release tag vouches for them.
  release = await git(repo.work, 'rev-parse', 'HEAD');
  await tagRelease(signed, 'release 1');
  const stateDir = await tempDir('packsync-verify-tag-');
  agent = await startVerifyingAgent(sim, repo, { mode: 'tag', trusted, stateDir, ref: 'release' });
});

afterAll(async () => {
  await agent?.stop();
  await sim?.close();
});

describe('run --verify-mode tag', () => {
  it('applies the commit of a signed tag and names the signer', async () => {
    const s = await agent.until('release applied', (x) => x.lastAppliedRevision === release);
    expect(verified(s)).toMatchObject({ status: 'True', reason: 'VerificationSucceeded' });
    expect(s.lastAppliedSigner).toBe('alice@example.com');
    expect((await sim.writes()).length).toBeGreaterThan(0);
  });

  it('refuses an unsigned tag; the signed release stays in force', async () => {
    const before = (await sim.writes()).length;
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    const next = await commitAs(repo.work, alice, null, 'stop 7-Zip');
    await tagRelease(null, 'release 2 (unsigned)');
    const s = await agent.reconcile();
    expect(verified(s)).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(verified(s)?.message).toContain(`revision ${next} is not applied`);
    expect(verified(s)?.message).toContain('tag release is not signed');
    expect(s.lastAppliedRevision).toBe(release);
    expect(s.lastAttemptedRevision).toBe(next);
    expect((await sim.writes()).length).toBe(before);
    expect(await agent.counter('packsync_source_verification_total', { result: 'failed' })).toBe(1);
  });

  it('applies the release once its tag is signed again', async () => {
    const before = (await sim.writes()).length;
    await tagRelease(signed, 'release 2');
    const s = await agent.reconcile();
    expect(verified(s)).toMatchObject({ status: 'True' });
    expect(s.lastAppliedRevision).toBe(await git(repo.work, 'rev-parse', 'HEAD'));
    expect((await sim.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/stop']);
  });

  it('refuses a signed tag of another name pushed as the release (regression: a candidate tag moved to release was applied)', async () => {
    const before = (await sim.writes()).length;
    const applied = await git(repo.work, 'rev-parse', 'HEAD');
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'running' }));
    const candidate = await commitAs(repo.work, alice, null, 'start 7-Zip again (candidate)');
    // Signed by a trusted key, but as "v3-rc1": someone with push rights, without a key, stores it as release.
    await gitAs(repo.work, alice, signed, 'tag', '-s', '-m', 'candidate', 'v3-rc1');
    await git(repo.work, 'push', '-q', '--force', 'origin', 'HEAD:main', 'refs/tags/v3-rc1:refs/tags/release');
    const s = await agent.reconcile();
    expect(verified(s)).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(verified(s)?.message).toContain(`revision ${candidate} is not applied`);
    expect(verified(s)?.message).toContain('signed as "v3-rc1", not as "release"');
    expect(s.lastAppliedRevision).toBe(applied);
    expect((await sim.writes()).length).toBe(before);
  });
});
