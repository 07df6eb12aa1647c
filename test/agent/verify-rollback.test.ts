/**
 * No rollback by force-push (issue 20.15, security review 3 finding 7; docs/agent.md "Rollbacks"): with
 * `--verify-mode range` or `tag`, a signed revision that does not descend from the last verified one is
 * refused like an unsigned one — nothing written, the verified revision stays in force — so someone with
 * push rights but no key cannot choose which old trusted revision runs (regression: range mode checked
 * only the old head's own signature and applied it). A revert signed on top applies; `--allow-rollback`
 * lets an operator go back on purpose.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../support/agent-process.js';
import { git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { tempDir } from '../support/repo.js';
import {
  ALICE as alice,
  commitDeployments,
  gitAs,
  signedRepo,
  sourceVerified as verified,
  startVerifyingAgent,
} from '../support/signing.js';
import type { Signer } from '../support/signing.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let repo: TestRepo;
let signed: Signer;
let trusted: string;
const agents: RunningAgent[] = [];

beforeAll(async () => {
  sim = await startTestSimulator();
  ({ repo, trusted, signer: signed } = await signedRepo());
});

afterAll(async () => {
  for (const a of agents) await a.stop();
  await sim?.close();
});

const push = (...refs: string[]): Promise<string> => git(repo.work, 'push', '-q', '--force', 'origin', 'HEAD:main', ...refs);

/** An agent with a state of its own, against an account of its own (a simulator per agent). */
async function agentIn(mode: 'range' | 'tag', args: string[] = []): Promise<RunningAgent> {
  if (agents.length > 0) {
    await sim.close();
    sim = await startTestSimulator();
  }
  const a = await startVerifyingAgent(sim, repo, {
    mode,
    trusted,
    stateDir: await tempDir('packsync-rollback-'),
    ...(mode === 'tag' ? { ref: 'release' } : {}),
    args,
  });
  agents.push(a);
  return a;
}

describe('a force-push back to an older signed revision', () => {
  it('is refused in range mode; a signed revert on top applies', async () => {
    const old = await commitDeployments(repo.work, alice, signed, 'stopped', 'stop (signed)');
    await push();
    const agent = await agentIn('range');
    await agent.until('old applied', (x) => x.lastAppliedRevision === old);
    const head = await commitDeployments(repo.work, alice, signed, 'running', 'run (signed)');
    await push();
    expect((await agent.reconcile()).lastAppliedRevision).toBe(head);

    const before = (await sim.writes()).length;
    await git(repo.work, 'reset', '-q', '--hard', old);
    await push();
    const s = await agent.reconcile();
    expect(verified(s)).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(verified(s)?.message).toContain(`does not descend from the last verified revision ${head}`);
    expect(s.lastAppliedRevision).toBe(head);
    expect((await sim.writes()).length).toBe(before);

    // The way back that keeps history: a revert of the change, signed, on top of what was verified.
    await git(repo.work, 'reset', '-q', '--hard', head);
    await gitAs(repo.work, alice, signed, 'revert', '--no-edit', '-S', head);
    const revert = await git(repo.work, 'rev-parse', 'HEAD');
    await push();
    const after = await agent.reconcile();
    expect(after.lastAppliedRevision).toBe(revert);
    expect((await sim.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/stop']);
  });

  it('is applied with --allow-rollback', async () => {
    const old = await git(repo.work, 'rev-parse', 'HEAD~1');
    const agent = await agentIn('range', ['--allow-rollback']);
    const top = await git(repo.work, 'rev-parse', 'HEAD');
    await agent.until('head applied', (x) => x.lastAppliedRevision === top);
    await git(repo.work, 'reset', '-q', '--hard', old);
    await push();
    const s = await agent.reconcile();
    expect(verified(s)).toMatchObject({ status: 'True' });
    expect(s.lastAppliedRevision).toBe(old);
  });

  it('is refused in tag mode when the release tag moves back to an older signed commit', async () => {
    const older = await git(repo.work, 'rev-parse', 'HEAD');
    await gitAs(repo.work, alice, signed, 'tag', '-f', '-s', '-m', 'release 1', 'release');
    await push('refs/tags/release');
    const agent = await agentIn('tag');
    await agent.until('release 1 applied', (x) => x.lastAppliedRevision === older);
    const newer = await commitDeployments(repo.work, alice, signed, 'running', 'run again (signed)');
    await gitAs(repo.work, alice, signed, 'tag', '-f', '-s', '-m', 'release 2', 'release');
    await push('refs/tags/release');
    expect((await agent.reconcile()).lastAppliedRevision).toBe(newer);

    const before = (await sim.writes()).length;
    await gitAs(repo.work, alice, signed, 'tag', '-f', '-s', '-m', 'release 1 again', 'release', older);
    await push('refs/tags/release');
    const s = await agent.reconcile();
    expect(verified(s)).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(verified(s)?.message).toContain('does not descend from the last verified revision');
    expect(s.lastAppliedRevision).toBe(newer);
    expect((await sim.writes()).length).toBe(before);
  });
});
