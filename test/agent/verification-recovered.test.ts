/**
 * Regression: with `--verify-mode`, a refused revision (unsigned) is a `VerificationFailed` while the
 * last verified revision stays applied (the pass itself succeeds). A trusted commit after it was
 * applied, `SourceVerified=True`, but no `Recovered` ever came: the refusal stayed open in the
 * notifications store and the alert open at every receiver. Real agent process, real git (a bare
 * remote, force-pushed), a webhook receiver, the notifications store file.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../support/agent-process.js';
import { git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { until as poll } from '../support/poll.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { tempDir } from '../support/repo.js';
import { ALICE, commitAs, commitDeployments, signedRepo, sourceVerified, startVerifyingAgent } from '../support/signing.js';
import type { Signer } from '../support/signing.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let repo: TestRepo;
let rx: Receiver;
let agent: RunningAgent;
let signer: Signer;
let stateDir: string;
let base: string;

interface Hook {
  reason: string;
  object: { kind: string; name: string };
  revision: string | null;
}

const hooks = (): Hook[] => rx.requests.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as Hook);
const reasons = (): string[] => hooks().map((h) => h.reason);
const until = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> =>
  poll(what, probe, 30_000, { intervalMs: 50, detail: reasons });
const push = (): Promise<string> => git(repo.work, 'push', '-q', '--force', 'origin', 'HEAD:main');

beforeAll(async () => {
  sim = await startTestSimulator();
  rx = await startReceiver();
  let trusted: string;
  ({ repo, trusted, signer } = await signedRepo());
  base = await commitAs(repo.work, ALICE, signer, 'signed base');
  await push();
  stateDir = await tempDir('packsync-verify-recovered-');
  const conf = await tempDir('packsync-verify-recovered-conf-');
  await writeFile(join(conf, 'hook-url'), `${rx.url}/hook\n`);
  const notifications = join(conf, 'notifications.yaml');
  await writeFile(
    notifications,
    'providers:\n  - name: hook\n    type: webhook\n    addressFile: hook-url\nalerts:\n  - provider: hook\n    severity: error\n',
  );
  agent = await startVerifyingAgent(sim, repo, { mode: 'range', trusted, stateDir, args: ['--notifications', notifications] });
  await agent.until('the signed base applied', (s) => s.lastAppliedRevision === base);
});

afterAll(async () => {
  await agent?.stop();
  await rx?.close();
  await sim?.close();
});

describe('run --verify-mode range --notifications', () => {
  it('recovered-after-verification-failed: a trusted commit applied after a refused one is a Recovered, sent, and closes the refusal', async () => {
    const unsigned = await commitDeployments(repo.work, ALICE, null, 'stopped', 'unsigned change');
    await push();
    const refused = await agent.reconcile();
    expect(sourceVerified(refused)).toMatchObject({ status: 'False', reason: 'VerificationFailed' });
    // The last verified revision stays applied: the pass itself succeeds.
    expect(refused.history[0]?.result).toBe('Succeeded');
    expect(refused.lastAppliedRevision).toBe(base);
    expect(refused.events.filter((e) => e.reason === 'Recovered')).toEqual([]);
    const sent = await until('VerificationFailed sent', () => hooks().find((h) => h.reason === 'VerificationFailed'));
    expect(sent).toMatchObject({ object: { kind: 'Source', name: repo.fileUrl }, revision: unsigned });

    // The way out in range mode: a history without the unsigned commit, signed by a trusted key.
    await git(repo.work, 'reset', '-q', '--hard', base);
    const trusted = await commitDeployments(repo.work, ALICE, signer, 'stopped', 'signed change');
    await push();
    const back = await agent.reconcile();
    expect(back.lastAppliedRevision).toBe(trusted);
    expect(sourceVerified(back)).toMatchObject({ status: 'True' });
    expect(back.events.find((e) => e.reason === 'Recovered')).toMatchObject({
      object: `Source/${repo.fileUrl}`,
      revision: trusted,
      severity: 'info',
    });
    const recovered = await until('Recovered sent', () => hooks().find((h) => h.reason === 'Recovered'));
    expect(recovered).toMatchObject({ object: { kind: 'Source', name: repo.fileUrl }, revision: trusted });
    expect(reasons()).toEqual(['VerificationFailed', 'Recovered']);
    // The refusal is answered in the store: no failure is left open.
    const store = await until('the store closed the refusal', async () => {
      const s = JSON.parse(await readFile(join(stateDir, 'notifications.json'), 'utf8')) as {
        sent: Record<string, { reason: string; open: boolean }>;
      };
      return Object.values(s.sent).every((r) => !r.open) && s;
    });
    expect(Object.values(store.sent).map((r) => r.reason)).toEqual(['Recovered']);
  });
});
