/**
 * The agent's evidence (docs/reports.md, docs/agent.md): a real `packsync run --external-url URL --name NAME` against
 * the simulator, with a webhook and a GitHub commit-status receiver. Every notification links to the
 * object's anchor on the status page (which carries that id) and names the agent; commit statuses
 * carry `target_url`. `/metrics` has one `packsync_rollout_wave` / `packsync_rollout_success_ratio`
 * series per rollout. `packsync status --agent URL` prints the agent as a terminal view, as JSON, and
 * an unreachable agent is exit 1 naming the URL without its credentials or the token.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import type { Report } from '../../src/export/report-model.js';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { cli } from '../support/cli.js';
import { manifestRepo } from '../support/manifests.js';
import type { TestRepo } from '../support/git.js';
import { until as poll } from '../support/poll.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const EXTERNAL = 'https://packsync.example.com/prod/';
const TOKEN = 'agent-view-token-0123456789';
let sim: TestSim;
let repo: TestRepo;
let rx: Receiver;
let agent: RunningAgent;
let stateDir: string;

interface Hook {
  reason: string;
  object: { kind: string; name: string };
  url?: string;
  agent?: string;
}
const hooks = (): Hook[] => rx.requests.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as Hook);
const until = <T>(what: string, probe: () => T | undefined | false): Promise<T> => poll(what, probe, 30_000, { intervalMs: 50 });

beforeAll(async () => {
  sim = await startTestSimulator();
  rx = await startReceiver();
  repo = await manifestRepo();
  const dir = await tempDir('packsync-evidence-agent-');
  await writeFile(join(dir, 'hook-url'), `${rx.url}/hook\n`);
  await writeFile(join(dir, 'gh-token'), 'ghp_notarealtoken0123456789\n');
  const config = join(dir, 'notifications.yaml');
  await writeFile(
    config,
    `providers:\n  - name: hook\n    type: webhook\n    addressFile: hook-url\n  - name: gh\n    type: github\n    address: ${rx.url}/gh\n    tokenFile: gh-token\n    repository: acme/fleet\nalerts:\n  - provider: hook\n  - provider: gh\n`,
  );
  stateDir = await tempDir('packsync-agent-state-');
  agent = await startAgent(
    ['--source', repo.fileUrl, '--ref', 'main', '--notifications', config, '--external-url', EXTERNAL, '--name', 'prod-eu'],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir },
    stateDir,
  );
  await agent.until('first apply', (s) => s.lastAppliedRevision !== null);
  await agent.reconcile(); // the rollout's first sight: a baseline
  await sim.advance(25 * 3600); // past Pilot's 24 h delay: the service moves it to wave 2
  await agent.reconcile();
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await rx?.close();
  await sim?.close();
});

describe('agent evidence', () => {
  it("links every notification and commit status to the object's anchor on the status page, and names the agent", async () => {
    const wave = await until('WaveAdvanced sent', () => hooks().find((h) => h.reason === 'WaveAdvanced'));
    expect(wave).toMatchObject({
      object: { kind: 'Deployment', name: 'seven-zip-24-08' },
      url: `${EXTERNAL}#obj-Deployment-seven-zip-24-08`,
      agent: 'prod-eu',
    });
    const applied = hooks().find((h) => h.reason === 'ApplySucceeded')!;
    expect(applied).toMatchObject({ object: { kind: 'Source' }, url: `${EXTERNAL}#banner`, agent: 'prod-eu' });
    const status = JSON.parse(rx.requests.find((r) => r.path.startsWith('/gh/'))!.body) as { target_url: string; description: string };
    expect(status.target_url).toBe(`${EXTERNAL}#banner`);
    expect(status.description).toMatch(/^prod-eu: /);
    // The anchors exist on the page, once each.
    const page = await (await fetch(`${agent.base}/`)).text();
    expect(page.match(/id="obj-Deployment-seven-zip-24-08"/g)).toHaveLength(1);
    expect(page).toContain('id=banner');
  });

  it('exports one wave and one success series per rollout, labelled by deployment and flow', async () => {
    const labels = { deployment: 'Deployment/seven-zip-24-08', flow: 'seven-zip' };
    expect(await agent.counter('packsync_rollout_wave', labels)).toBe(2);
    const s = await agent.status();
    const board = s.rollouts.find((r) => r.deployment === labels.deployment)!;
    expect(board.currentWave).toBe(2);
    if (board.successRate !== undefined)
      expect(await agent.counter('packsync_rollout_success_ratio', labels)).toBeCloseTo(board.successRate / 100, 3);
    const text = await (await fetch(`${agent.base}/metrics`)).text();
    expect(text.split('\n').filter((l) => l.startsWith('packsync_rollout_wave{'))).toHaveLength(s.rollouts.length);
  });

  it("records the rollout's history as it runs: a report read beside the running agent has its start and both waves", async () => {
    const out = await cli(['report', '--from', '2020-01-01', '--format', 'json'], {
      PACKSYNC_API_URL: sim.url,
      PACKSYNC_API_KEY: sim.key,
      PACKSYNC_STATE_DIR: stateDir,
    });
    expect(out.code, out.stderr).toBe(0);
    const r = JSON.parse(out.stdout) as Report;
    const row = r.tenants.flatMap((t) => t.rollouts).find((x) => x.deployment === 'Deployment/seven-zip-24-08')!;
    expect(row.waves.map((w) => `${w.wave}:${w.by}`)).toEqual(['1:service', '2:service']);
    // The service moved it after Pilot's 24 h delay: wave 2's time is wave 1's plus that delay.
    expect(Date.parse(row.waves[1]!.reachedAt) - Date.parse(row.waves[0]!.reachedAt)).toBe(24 * 3_600_000);
  });

  it('packsync status --agent prints health, the revision, attention and each rollout with its wave and tenants', async () => {
    const s = await agent.status();
    const view = await cli(['status', '--agent', agent.base], {});
    expect(view.code, view.stderr).toBe(0);
    expect(view.stdout).toMatch(/^Ready/);
    expect(view.stdout).toContain(`Revision  ${s.lastAppliedRevision!}`);
    expect(view.stdout).toMatch(/7-Zip 24\.08 {2}seven-zip {2}Running {2}wave 2\/3 \[#{7}\.{3}\]/);
    expect(view.stdout).toMatch(/✓ \S+.*\(w1\)/);
    // No terminal: no colour codes.
    expect(view.stdout).not.toContain('\x1b[');
    const json = await cli(['status', '--agent', agent.base, '--output', 'json'], {});
    expect((JSON.parse(json.stdout) as AgentStatus).lastAppliedRevision).toBe(s.lastAppliedRevision);
  });

  it('an unreachable agent is exit 1 naming the URL without credentials; the token goes only in the header', async () => {
    const dead = await cli(['status', '--agent', 'http://ops:hunter2@127.0.0.1:9/'], {});
    expect(dead.code).toBe(1);
    // Port 9 is one fetch never dials: its reason is said (unreachable-agent-says-why; before: "(TypeError)").
    expect(dead.stderr).toMatch(/AGENT_UNREACHABLE: agent http:\/\/127\.0\.0\.1:9\/ is unreachable \(bad port\)/);
    expect(dead.stderr).not.toContain('hunter2');
    const tokenFile = join(await tempDir('packsync-token-'), 'token');
    await writeFile(tokenFile, `${TOKEN}\n`);
    const before = rx.requests.length;
    const notAgent = await cli(['status', '--agent', `${rx.url}/not-an-agent`, '--token-file', tokenFile], {});
    expect(notAgent.code).toBe(1);
    expect(notAgent.stderr).toMatch(/AGENT_UNREACHABLE: .*not a packsync agent's status/);
    expect(notAgent.stderr).not.toContain(TOKEN);
    expect(rx.requests.slice(before)[0]).toMatchObject({ path: '/not-an-agent/status', headers: { authorization: `Bearer ${TOKEN}` } });
  });
});
