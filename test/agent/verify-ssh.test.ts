/**
 * `packsync run --verify-mode head` with SSH signatures: the real CLI follows a real repository
 * whose commits are signed by real ed25519 keys, against the simulator over HTTP. A trusted commit
 * is applied; unsigned, untrusted and principal-mismatched commits are refused (nothing written,
 * the last verified revision stays in force, one event each); the next trusted commit applies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStatusView, RunningAgent } from '../support/agent-process.js';
import { git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { manifestRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import {
  ALICE as alice,
  commitAs,
  commitDeployments,
  sourceVerified as verified,
  sshKey,
  startVerifyingAgent,
  writeAllowedSigners,
} from '../support/signing.js';
import type { SshKey } from '../support/signing.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let repo: TestRepo;
let agent: RunningAgent;
let keys: { alice: SshKey; bob: SshKey; mallory: SshKey };
let first: string;

beforeAll(async () => {
  sim = await startTestSimulator();
  const keyDir = await tempDir('packsync-keys-');
  const trusted = await tempDir('packsync-trusted-');
  keys = { alice: await sshKey(keyDir, 'alice'), bob: await sshKey(keyDir, 'bob'), mallory: await sshKey(keyDir, 'mallory') };
  // Bob's key is trusted, but only as bob@example.com; Mallory's key is not trusted at all.
  await writeAllowedSigners(trusted, [
    { principal: 'alice@example.com', key: keys.alice },
    { principal: 'bob@example.com', key: keys.bob },
  ]);
  repo = await manifestRepo();
  first = await commitAs(repo.work, alice, { format: 'ssh', keyFile: keys.alice.keyFile }, 'signed manifests');
  await push();
  const stateDir = await tempDir('packsync-verify-state-');
  agent = await startVerifyingAgent(sim, repo, { mode: 'head', trusted, stateDir });
});

afterAll(async () => {
  await agent?.stop();
  await sim?.close();
});

async function push(): Promise<void> {
  await git(repo.work, 'push', '-q', '--force', 'origin', 'HEAD:main');
}

/** Commits a change to deployments.yaml as Alice, signed as given, pushes it and runs a pass. */
async function pushChange(
  state: 'running' | 'stopped',
  signer: Parameters<typeof commitAs>[2],
): Promise<{ commit: string; s: AgentStatusView }> {
  const commit = await commitDeployments(repo.work, alice, signer, state, `deployments ${state}`);
  await push();
  return { commit, s: await agent.reconcile() };
}

describe('run --verify-mode head with SSH signatures', () => {
  it('applies a commit signed by a trusted key under its committer principal', async () => {
    const s = await agent.until('first verified apply', (x) => x.lastAppliedRevision === first);
    expect(verified(s)).toMatchObject({ status: 'True', reason: 'VerificationSucceeded' });
    expect(verified(s)?.message).toContain('alice@example.com');
    expect(s.lastAppliedSigner).toBe('alice@example.com');
    expect(agent.condition(s, 'Ready')).toMatchObject({ status: 'True' });
    expect((await sim.writes()).length).toBeGreaterThan(0);
    expect(await agent.counter('packsync_source_verification_total', { result: 'verified' })).toBe(1);
  });

  it('refuses an unsigned commit: nothing written, the last verified revision stays in force', async () => {
    const before = (await sim.writes()).length;
    const { commit, s } = await pushChange('stopped', null);
    expect(verified(s)).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(verified(s)?.message).toContain(commit);
    expect(verified(s)?.message).toContain('is not signed');
    expect(agent.condition(s, 'Ready')).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(s.lastAppliedRevision).toBe(first);
    expect(s.lastAttemptedRevision).toBe(commit);
    // Refused, yet able to do its job: the pod stays in its Service for the next (signed) push (docs/reconcile.md).
    expect((await fetch(`${agent.base}/readyz`)).status).toBe(200);
    // Another pass on the same refused head: still nothing written, and no second event.
    const again = await agent.reconcile();
    expect(again.events.filter((e) => e.reason === 'VerificationFailed' && e.revision === commit)).toEqual([
      expect.objectContaining({ object: `Source/${repo.fileUrl}` }),
    ]);
    expect((await sim.writes()).length).toBe(before);
    expect(await agent.counter('packsync_source_verification_total', { result: 'failed' })).toBe(1);
  });

  it('refuses a commit signed by a key that is not trusted, naming the key', async () => {
    const before = (await sim.writes()).length;
    const { commit, s } = await pushChange('stopped', { format: 'ssh', keyFile: keys.mallory.keyFile });
    expect(verified(s)).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(verified(s)?.message).toContain(commit);
    expect(verified(s)?.message).toContain(keys.mallory.fingerprint);
    expect(verified(s)?.message).toContain('not in the trusted allowed_signers');
    expect(s.lastAppliedRevision).toBe(first);
    expect((await sim.writes()).length).toBe(before);
  });

  it('refuses a commit signed by a trusted key under another principal than its committer', async () => {
    const before = (await sim.writes()).length;
    const { commit, s } = await pushChange('stopped', { format: 'ssh', keyFile: keys.bob.keyFile });
    expect(verified(s)).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(verified(s)?.message).toContain(commit);
    expect(verified(s)?.message).toContain('signed by bob@example.com');
    expect(verified(s)?.message).toContain('committed by alice@example.com');
    expect(s.lastAppliedRevision).toBe(first);
    expect((await sim.writes()).length).toBe(before);
    expect(s.events.filter((e) => e.reason === 'VerificationFailed').length).toBe(3);
  });

  it('applies the next trusted commit at once', async () => {
    const before = (await sim.writes()).length;
    const { commit, s } = await pushChange('stopped', { format: 'ssh', keyFile: keys.alice.keyFile });
    expect(s.lastAppliedRevision).toBe(commit);
    expect(s.lastAppliedSigner).toBe('alice@example.com');
    expect(verified(s)).toMatchObject({ status: 'True', reason: 'VerificationSucceeded' });
    expect(agent.condition(s, 'Ready')).toMatchObject({ status: 'True' });
    expect((await sim.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/stop']);
    expect(await agent.counter('packsync_source_verification_total', { result: 'verified' })).toBe(2);
    expect(await agent.counter('packsync_source_verification_total', { result: 'failed' })).toBe(3);
  });
});
