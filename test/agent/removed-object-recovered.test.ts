/**
 * Regression: an object whose apply failed was answered by `Recovered` only while it was still in the
 * plan. A failing Flow whose manifest was removed from git (`git rm`, push) left the next pass
 * successful but the failure open for ever: no `Recovered` on /status, at the receiver, and an open
 * record in the notifications store. Real agent process, real git, the simulator, a webhook receiver.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../support/agent-process.js';
import type { TestRepo } from '../support/git.js';
import { flowDoc } from '../support/manifests.js';
import { startHookedAgent } from '../support/notified-agent.js';
import type { HookedAgent } from '../support/notified-agent.js';
import { until as poll } from '../support/poll.js';
import type { Receiver } from '../support/receiver.js';

let repo: TestRepo;
let rx: Receiver;
let agent: RunningAgent;
let stateDir: string;

interface Hook {
  reason: string;
  object: { kind: string; name: string };
  message: string;
}

const hooks = (): Hook[] => rx.requests.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as Hook);
const until = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> =>
  poll(what, probe, 30_000, { intervalMs: 50, detail: () => hooks().map((h) => `${h.reason} ${h.object.kind}/${h.object.name}`) });

let h: HookedAgent | undefined;
beforeAll(async () => {
  h = await startHookedAgent();
  ({ repo, rx, agent, stateDir } = h);
});

afterAll(async () => {
  await h?.close();
});

describe('a failing object removed from git', () => {
  it('recovered-when-manifest-removed: the next successful pass answers its ApplyFailed with a Recovered that says it left git', async () => {
    await writeFile(join(repo.work, 'z.yaml'), flowDoc('z', 'NoSuchApp'));
    const bad = await repo.commit('a flow of an app the catalog does not have');
    const failed = await agent.reconcile();
    expect(failed.lastAttemptedRevision).toBe(bad);
    expect(failed.events.find((e) => e.reason === 'ApplyFailed')).toMatchObject({ object: 'Flow/z', severity: 'error' });
    await until('ApplyFailed Flow/z sent', () => hooks().find((h) => h.reason === 'ApplyFailed' && h.object.name === 'z'));

    await rm(join(repo.work, 'z.yaml'));
    const removed = await repo.commit('remove the flow');
    const back = await agent.reconcile();
    expect(back.history[0]).toMatchObject({ revision: removed, result: 'Succeeded' });
    const event = back.events.find((e) => e.reason === 'Recovered' && e.object === 'Flow/z');
    expect(event).toMatchObject({ revision: removed, severity: 'info' });
    expect(event?.message).toContain('no longer in git');
    const sent = await until('Recovered Flow/z sent', () => hooks().find((h) => h.reason === 'Recovered' && h.object.name === 'z'));
    expect(sent).toMatchObject({ object: { kind: 'Flow', name: 'z' } });
    expect(sent.message).toContain('no longer in git');
    const store = await until('no failure left open in the store', async () => {
      const s = JSON.parse(await readFile(join(stateDir, 'notifications.json'), 'utf8')) as {
        sent: Record<string, { object: string; open: boolean }>;
      };
      return Object.values(s.sent).every((r) => !r.open) && s;
    });
    expect(Object.values(store.sent).filter((r) => r.object === 'Flow/z')).toHaveLength(1);
  });
});
