/**
 * `packsync run --verify-mode range`: every commit since the last verified revision must be signed.
 * The last verified revision survives a restart (a fresh start that checked only the head would let
 * the unsigned commit behind it through); an unsigned commit in the middle of a three-commit push is
 * refused by name; a history without it is applied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../support/agent-process.js';
import { git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { tempDir } from '../support/repo.js';
import {
  ALICE as alice,
  commitAs,
  commitDeployments,
  signedRepo,
  sourceVerified as verified,
  startVerifyingAgent,
} from '../support/signing.js';
import type { Signer } from '../support/signing.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let repo: TestRepo;
let agent: RunningAgent | null = null;
let signed: Signer;
let trusted: string;
let stateDir: string;
let base: string;

function start(): Promise<RunningAgent> {
  return startVerifyingAgent(sim, repo, { mode: 'range', trusted, stateDir });
}

const change = (state: 'running' | 'stopped', signer: Signer, message: string): Promise<string> =>
  commitDeployments(repo.work, alice, signer, state, message);

const push = (): Promise<string> => git(repo.work, 'push', '-q', '--force', 'origin', 'HEAD:main');

beforeAll(async () => {
  sim = await startTestSimulator();
  ({ repo, trusted, signer: signed } = await signedRepo());
  // The first run checks only the head: the unsigned seed commit below it is history before trust began.
  base = await commitAs(repo.work, alice, signed, 'signed base');
  await push();
  stateDir = await tempDir('packsync-verify-range-');
});

afterAll(async () => {
  await agent?.stop();
  await sim?.close();
});

describe('run --verify-mode range', () => {
  it('applies the signed head on the first run', async () => {
    agent = await start();
    const s = await agent.until('first apply', (x) => x.lastAppliedRevision === base);
    expect(verified(s)).toMatchObject({ status: 'True' });
    expect(await agent.stop()).toBe(0);
    agent = null;
  });

  it('after a restart, checks from the persisted last verified revision and names the unsigned commit', async () => {
    const before = (await sim.writes()).length;
    const unsigned = await change('stopped', null, 'unsigned change');
    const head = await change('stopped', signed, 'signed on top');
    await push();
    agent = await start();
    const s = await agent.until('refusal', (x) => verified(x)?.status === 'False' && x.passes >= 1);
    expect(verified(s)?.reason).toBe('VerificationFailed');
    expect(verified(s)?.message).toContain(`revision ${head} is not applied`);
    expect(verified(s)?.message).toContain(`commit ${unsigned} is not signed`);
    expect(s.lastAppliedRevision).toBe(base);
    expect((await sim.writes()).length).toBe(before);
  });

  it('refuses a three-commit push with an unsigned commit in the middle, naming it', async () => {
    const before = (await sim.writes()).length;
    await git(repo.work, 'reset', '-q', '--hard', base);
    await change('stopped', signed, 'one');
    const middle = await change('running', null, 'two (unsigned)');
    const head = await change('stopped', signed, 'three');
    await push();
    const s = await agent!.reconcile();
    expect(verified(s)).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    expect(verified(s)?.message).toContain(`revision ${head} is not applied`);
    expect(verified(s)?.message).toContain(`commit ${middle} is not signed (commit 2 of 3 since ${base})`);
    expect(s.events.filter((e) => e.reason === 'VerificationFailed' && e.revision === head).length).toBe(1);
    expect(s.lastAppliedRevision).toBe(base);
    expect((await sim.writes()).length).toBe(before);
  });

  it('applies a pushed history whose every commit is signed', async () => {
    const before = (await sim.writes()).length;
    await git(repo.work, 'reset', '-q', '--hard', base);
    await change('running', signed, 'one');
    const head = await change('stopped', signed, 'two');
    await push();
    const s = await agent!.reconcile();
    expect(s.lastAppliedRevision).toBe(head);
    expect(verified(s)).toMatchObject({ status: 'True', reason: 'VerificationSucceeded' });
    expect((await sim.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/stop']);
    expect(await agent!.counter('packsync_source_verification_total', { result: 'failed' })).toBe(2);
  });
});
