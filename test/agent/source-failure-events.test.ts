/**
 * Failures of the git source are events and notifications, like Flux's alerts on a GitRepository.
 * Regression: a deleted branch (SOURCE_REF_NOT_FOUND) or an unreachable repository
 * (SOURCE_FETCH_FAILED) set Ready=False but raised no event and sent nothing, and the `Recovered`
 * after it was an orphan that no provider was sent. And a failure after a `Recovered` is a new
 * occurrence (regression: a second outage on the same commit was never sent again, its record kept
 * as `open: false`). Real agent process, real git, a webhook receiver.
 */
import { rename } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHookedAgent } from '../support/notified-agent.js';
import type { HookedAgent } from '../support/notified-agent.js';
import type { TestSim } from '../support/sim.js';
import type { RunningAgent } from '../support/agent-process.js';
import { git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { until as poll } from '../support/poll.js';
import type { Receiver } from '../support/receiver.js';

let sim: TestSim;
let repo: TestRepo;
let rx: Receiver;
let agent: RunningAgent;

interface Hook {
  reason: string;
  severity: string;
  object: { kind: string; name: string };
  revision: string | null;
  message: string;
}

const hooks = (): Hook[] => rx.requests.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as Hook);
const reasons = (): string[] => hooks().map((h) => h.reason);
const until = <T>(what: string, probe: () => T | undefined | false): Promise<T> =>
  poll(what, probe, 30_000, { intervalMs: 50, detail: reasons });

let h: HookedAgent | undefined;
beforeAll(async () => {
  h = await startHookedAgent();
  ({ sim, repo, rx, agent } = h);
});

afterAll(async () => {
  await h?.close();
});

describe('git source failures', () => {
  it('a deleted branch is one ApplyFailed event sent once while it lasts, and the Recovered after it is sent', async () => {
    await git(repo.bare, 'update-ref', '-d', 'refs/heads/main');
    const failed = await agent.reconcile();
    expect(failed.history[0]?.result).toBe('Failed');
    const event = failed.events.find((e) => e.reason === 'ApplyFailed');
    expect(event).toMatchObject({ severity: 'error', object: `Source/${repo.fileUrl}` });
    expect(event?.message).toMatch(/^SOURCE_REF_NOT_FOUND: /);
    const sent = await until('ApplyFailed sent', () => hooks().find((h) => h.reason === 'ApplyFailed'));
    expect(sent).toMatchObject({ severity: 'error', object: { kind: 'Source', name: repo.fileUrl } });
    expect(sent.message).toMatch(/^SOURCE_REF_NOT_FOUND: /);

    // Still gone: the same event counts up, nothing new is sent.
    const again = await agent.reconcile();
    expect(again.events.find((e) => e.reason === 'ApplyFailed')?.count).toBeGreaterThanOrEqual(2);

    await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
    const back = await agent.reconcile();
    expect(back.history[0]?.result).toBe('Succeeded');
    const recovered = await until('Recovered sent', () => hooks().find((h) => h.reason === 'Recovered'));
    expect(recovered.object).toEqual({ kind: 'Source', name: repo.fileUrl });
    expect(reasons()).toEqual(['ApplyFailed', 'Recovered']);
  });

  it('a second outage on the same commit, after a Recovered, is sent again, and so is its Recovered', async () => {
    const head = (await agent.status()).lastAppliedRevision!;
    const count = (reason: string): number => reasons().filter((r) => r === reason).length;
    // The repository unreachable: the same identity as the deleted branch (no revision fetched).
    const away = `${repo.bare}.away`;
    await rename(repo.bare, away);
    await agent.reconcile();
    const unreachable = await until('the second source ApplyFailed sent', () => count('ApplyFailed') === 2 && hooks().at(-1));
    expect(unreachable).toMatchObject({ reason: 'ApplyFailed', object: { kind: 'Source', name: repo.fileUrl }, revision: null });
    expect(unreachable.message).toMatch(/^SOURCE_FETCH_FAILED: /);
    await rename(away, repo.bare);
    await agent.reconcile();
    await until('the second Recovered sent', () => count('Recovered') === 2);

    // An API outage on the head, twice, with a recovery in between: each outage is sent.
    for (const n of [3, 4]) {
      await sim.admin('PUT', '/_sim/faults', '5xx=1');
      await agent.reconcile();
      const outage = await until(`ApplyFailed #${n} sent`, () => count('ApplyFailed') === n && hooks().at(-1));
      expect(outage).toMatchObject({ reason: 'ApplyFailed', revision: head });
      await sim.admin('PUT', '/_sim/faults', 'none');
      await agent.reconcile();
      await until(`Recovered #${n} sent`, () => count('Recovered') === n);
    }
    expect(reasons()).toEqual([
      'ApplyFailed',
      'Recovered',
      'ApplyFailed',
      'Recovered',
      'ApplyFailed',
      'Recovered',
      'ApplyFailed',
      'Recovered',
    ]);
  });
});
