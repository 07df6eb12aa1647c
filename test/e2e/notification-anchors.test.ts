/**
 * `run --external-url` links (docs/agent.md, "Links and the agent's name"): every link a notification
 * carries points at an id the status page has, whatever the event names: a whole revision (the banner),
 * a deployment of git's that completed (no longer on the board), a rollout the service started
 * (`Flow/NAME@VERSION`, gated by its flow's `promotion`).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { flowsYaml, writeRepo } from '../support/manifests.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const EXTERNAL = 'https://packsync.example.com/status/';
const HOUR = 3600;
let sim: TestSim;
let agent: RunningAgent;
let rx: Receiver;

interface Hook {
  reason: string;
  object: { kind: string; name: string };
  url?: string;
}
const hooks = (): Hook[] => rx.requests.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as Hook);

beforeAll(async () => {
  sim = await startTestSimulator({ timeScale: 60 });
  rx = await startReceiver();
  const repo = await writeRepo({ pwshState: 'running' });
  await writeFile(join(repo, 'flows.yaml'), flowsYaml(['promotion: { soak: 6h, minDevices: 20, maxFailureRate: 10% }']));
  const dir = await tempDir('packsync-anchors-notify-');
  await writeFile(
    join(dir, 'notify.yaml'),
    `providers:\n  - name: hook\n    type: webhook\n    address: ${rx.url}/hook\nalerts:\n  - provider: hook\n`,
  );
  await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0.5 } });
  const stateDir = await tempDir('packsync-anchors-state-');
  agent = await startAgent(
    ['--source', repo, '--interval', '1h', '--notifications', join(dir, 'notify.yaml'), '--external-url', EXTERNAL],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir },
    stateDir,
  );
  await agent.until('the first pass', (s) => s.lastAppliedRevision !== null);
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await rx?.close();
  await sim?.close();
});

describe('notification links', () => {
  it('notification-anchors-exist: every url a notification carries names an id the status page has', async () => {
    await agent.reconcile(); // the rollouts' first sight: a baseline
    await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
    await sim.advance(120);
    await agent.reconcile();
    await sim.advance(7 * HOUR);
    await agent.reconcile();
    await sim.advance(200 * HOUR);
    await agent.reconcile();
    await agent.reconcile();
    const s = await agent.status();
    await rx.waitFor(s.events.length);
    const page = await (await fetch(`${agent.base}/`)).text();
    const ids = new Set([...page.matchAll(/\sid="?([^\s">]+)/g)].map((m) => m[1]));
    const sent = hooks();
    // The scenario names each kind of object a link can be about.
    expect(sent).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'ApplySucceeded', object: expect.objectContaining({ kind: 'Source' }) }),
        expect.objectContaining({ reason: 'RolloutCompleted', object: { kind: 'Deployment', name: 'pwsh-7-4-6' } }),
        expect.objectContaining({ reason: 'GateHeld', object: { kind: 'Flow', name: 'seven-zip@24.09' } }),
      ]),
    );
    // The service's rollout its flow's gate holds is under needs attention, as a held one of git's is.
    expect(page).toMatch(/<li id="obj-Flow-seven-zip@24\.09"><code>Flow\/seven-zip@24\.09<\/code>: held by its flow's promotion gate/);
    const missing = sent.filter((h) => !ids.has(decodeURIComponent(new URL(h.url ?? EXTERNAL).hash.slice(1))));
    expect(missing.map((h) => `${h.reason} ${h.object.kind}/${h.object.name} → ${h.url}`)).toEqual([]);
  });
});
