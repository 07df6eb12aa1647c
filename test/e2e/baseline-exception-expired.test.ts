/**
 * An expired Baseline exception is said everywhere an operator or a customer looks (issue 25.4,
 * docs/baselines.md "Exceptions"): besides the plan header, the agent's `/status` and page (under
 * needs attention), one `ExceptionExpired` event that notifications carry, and `packsync report`'s
 * "Baseline exceptions" section (expired, so the baseline applies again).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';
import { cli } from '../support/cli.js';
import { objectAnchor } from '../../src/agent/http/anchors.js';

const BASELINE = `apiVersion: packsync.dev/v1
kind: Baseline
metadata: { name: standard-apps }
spec:
  rings:
    pilot: 2e346735-40e0-4c05-9733-4aece1ad5b00
    broad: 76aae74d-9520-4027-a476-94b19bb0471e
  defaults: { scope: machine, state: pending }
  apps:
    - { app: Notepad++, version: 8.7.1 }
    - { app: VLC media player, version: 3.0.21 }
  exceptions:
    - { app: VLC media player, ring: broad, action: omit, reason: "ticket 4711", owner: jdoe, expires: 2026-01-31 }
    - { app: Notepad++, ring: pilot, action: omit, reason: "vendor bug", owner: asmith, expires: 2099-12-31 }
`;

let sim: TestSim;
let rx: Receiver;
let agent: RunningAgent;
let repo: string;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startTestSimulator();
  rx = await startReceiver();
  repo = await tempDir('packsync-expired-');
  await writeFile(join(repo, 'baseline.yaml'), BASELINE);
  const dir = await tempDir('packsync-expired-notify-');
  await writeFile(
    join(dir, 'notify.yaml'),
    `providers:\n  - name: hook\n    type: webhook\n    address: ${rx.url}/hook\nalerts:\n  - provider: hook\n    reasons: [ExceptionExpired]\n`,
  );
  const stateDir = await tempDir('packsync-expired-state-');
  env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
  agent = await startAgent(['--source', repo, '--interval', '1h', '--notifications', join(dir, 'notify.yaml')], env, stateDir);
});

afterAll(async () => {
  await agent?.stop();
  await rx?.close();
  await sim?.close();
});

describe('an expired Baseline exception', () => {
  it('is on /status and under needs attention on the page; the one still in force is not', async () => {
    const s = await agent.until('expired exceptions on /status', (x) => (x.expiredExceptions ?? []).length > 0);
    expect(s.expiredExceptions).toEqual([
      expect.objectContaining({ baseline: 'standard-apps', app: 'VLC media player', ring: 'broad', owner: 'jdoe', expires: '2026-01-31' }),
    ]);
    const page = await (await fetch(`${agent.base}/`)).text();
    expect(page).toMatch(
      /Baseline\/standard-apps<\/code>.*the exception for VLC media player in ring broad \(omit, owner jdoe: ticket 4711\) expired on 2026-01-31/,
    );
    expect(page).not.toContain('vendor bug');
    // The item carries the id its ExceptionExpired notification's --external-url link points at.
    expect(page).toContain(`id="${objectAnchor('Baseline/standard-apps/VLC media player/broad')}"`);
  });

  it('is under needs attention in the terminal view too (regression: status --agent said nothing)', async () => {
    const r = await cli(['status', '--agent', agent.base], env);
    expect(r.code, r.stderr).toBe(0);
    const attention = r.stdout.slice(r.stdout.indexOf('Needs attention'), r.stdout.indexOf('Rollouts ('));
    expect(attention).toMatch(/Needs attention \(1\)/);
    expect(attention).toMatch(/Baseline\/standard-apps\/VLC media player\/broad .*expired on 2026-01-31/);
    expect(attention).not.toContain('vendor bug');
  });

  it('is one ExceptionExpired event that notifications carry, not repeated by the next pass', async () => {
    await rx.waitFor(1);
    await agent.reconcile();
    const hooks = rx.requests
      .filter((r) => r.path === '/hook')
      .map((r) => JSON.parse(r.body) as { reason: string; object: { kind: string; name: string }; message: string });
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({
      reason: 'ExceptionExpired',
      object: { kind: 'Baseline', name: 'standard-apps/VLC media player/broad' },
    });
    expect(hooks[0]!.message).toContain('the baseline applies to it again');
  });

  it("is in packsync report's Baseline exceptions as expired; the one in force says so", async () => {
    await agent.stop();
    const r = await spawnCli(['report', repo, '--format', 'json'], env).done;
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { exceptions: { app: string; state: string; owner: string }[] };
    expect(report.exceptions).toEqual([
      expect.objectContaining({ app: 'VLC media player', state: 'expired', owner: 'jdoe' }),
      expect.objectContaining({ app: 'Notepad++', state: 'in force', owner: 'asmith' }),
    ]);
    const md = await spawnCli(['report', repo], env).done;
    expect(md.stdout).toMatch(
      /## Baseline exceptions[\s\S]*\| standard-apps \| VLC media player \| broad \| omit \| jdoe \| ticket 4711 \| 2026-01-31 \| expired: the baseline applies again \|/,
    );
  });
});
