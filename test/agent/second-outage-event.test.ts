/**
 * Regression: an event's occurrences were merged by identity even across a `Recovered`. A deleted
 * branch (SOURCE_REF_NOT_FOUND), restored, then an unreachable repository (SOURCE_FETCH_FAILED) have
 * the same identity (the source, `ApplyFailed`, no revision): /status showed one ApplyFailed with the
 * first outage's time and a count covering both, and the second outage's notification carried that
 * count. A new outage after a `Recovered` is a new event. Real agent process, real git (a bare remote
 * deleted and moved away), a webhook receiver.
 */
import { rename } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../support/agent-process.js';
import { git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { startHookedAgent } from '../support/notified-agent.js';
import type { HookedAgent } from '../support/notified-agent.js';
import { until as poll } from '../support/poll.js';
import type { Receiver } from '../support/receiver.js';

let repo: TestRepo;
let rx: Receiver;
let agent: RunningAgent;

interface Hook {
  reason: string;
  message: string;
  metadata: { count: number };
}

const hooks = (): Hook[] => rx.requests.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as Hook);
const count = (reason: string): number => hooks().filter((h) => h.reason === reason).length;
const until = <T>(what: string, probe: () => T | undefined | false): Promise<T> =>
  poll(what, probe, 30_000, { intervalMs: 50, detail: () => hooks().map((h) => `${h.reason} ${h.metadata.count}`) });

let h: HookedAgent | undefined;
beforeAll(async () => {
  h = await startHookedAgent();
  ({ repo, rx, agent } = h);
});

afterAll(async () => {
  await h?.close();
});

describe('a second outage after a Recovered', () => {
  it('second-outage-new-event: is a new ApplyFailed event with its own time and count 1, and so is its notification and its Recovered', async () => {
    const source = `Source/${repo.fileUrl}`;
    await git(repo.bare, 'update-ref', '-d', 'refs/heads/main');
    await agent.reconcile();
    const first = await agent.reconcile();
    const outage1 = first.events.find((e) => e.reason === 'ApplyFailed' && e.object === source)!;
    expect(outage1.count).toBeGreaterThanOrEqual(2);
    expect(outage1.message).toMatch(/^SOURCE_REF_NOT_FOUND: /);
    await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
    await agent.reconcile();
    await until('the first Recovered sent', () => count('Recovered') === 1);

    const away = `${repo.bare}.away`;
    await rename(repo.bare, away);
    const second = await agent.reconcile();
    const failures = second.events.filter((e) => e.reason === 'ApplyFailed' && e.object === source);
    expect(failures).toHaveLength(2);
    const [outage2, old] = failures;
    expect(outage2).toMatchObject({ count: 1 });
    expect(outage2!.message).toMatch(/^SOURCE_FETCH_FAILED: /);
    expect(outage2!.time > old!.lastTimestamp).toBe(true);
    // The first outage is as it was when it recovered.
    expect(old).toMatchObject({ time: outage1.time, count: outage1.count });
    const sent = await until('the second ApplyFailed sent', () => count('ApplyFailed') === 2 && hooks().at(-1));
    expect(sent.metadata.count).toBe(1);
    expect(sent.message).toMatch(/^SOURCE_FETCH_FAILED: /);

    await rename(away, repo.bare);
    const back = await agent.reconcile();
    const recoveries = back.events.filter((e) => e.reason === 'Recovered' && e.object === source);
    expect(recoveries.map((e) => e.count)).toEqual([1, 1]);
    const recovered = await until('the second Recovered sent', () => count('Recovered') === 2 && hooks().at(-1));
    expect(recovered.metadata.count).toBe(1);
    expect(hooks().map((h) => [h.reason, h.metadata.count])).toEqual([
      ['ApplyFailed', 1],
      ['Recovered', 1],
      ['ApplyFailed', 1],
      ['Recovered', 1],
    ]);
  });
});
