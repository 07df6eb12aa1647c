/**
 * Orphans are out of sync (docs/reconcile.md "Requires pruning"): regression tests for a running
 * deployment whose manifest left git (no --prune) that `plan --detailed-exitcode` counted as
 * unchanged (rc 0), that the agent reported `Ready`, in sync and `success`, and that vanished from
 * the rollout board and from "needs attention" while it still ran; and for a hold git asked for
 * (`spec.wave`) listed under "needs attention" and notified at info.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { cli } from '../support/cli.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { copyExamples, tempDir } from '../support/repo.js';
import { useSim } from '../support/use-sim.js';
import type { SimEnv } from '../support/sim.js';

const KEY = 'Deployment/seven-zip';
let s: SimEnv;
useSim((x) => (s = x));
let agent: RunningAgent | null = null;
let rx: Receiver | null = null;
afterEach(async () => {
  await agent?.stop();
  agent = null;
  await rx?.close();
  rx = null;
});

/** examples/ applied, then the running seven-zip deployment's manifest removed from the repository. */
async function orphanedRepo(): Promise<string> {
  const repo = await copyExamples();
  await mkdir(join(repo, '.git'));
  expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
  await rm(join(repo, 'deployments/seven-zip.yaml'));
  return repo;
}

describe('an owned object whose manifest left git', () => {
  it('plan --detailed-exitcode exits 2 and counts the orphan that requires pruning (regression: rc 0, counted unchanged)', async () => {
    const repo = await orphanedRepo();
    const text = await cli(['plan', repo, '--detailed-exitcode'], s.env);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('1 orphaned (requires pruning)');
    const json = await cli(['plan', repo, '-o', 'json'], s.env);
    const plan = JSON.parse(json.stdout) as { summary: { orphaned: number }; objects: { key: string; requiresPruning?: boolean }[] };
    expect(plan.summary.orphaned).toBe(1);
    expect(plan.objects.find((o) => o.key === KEY)?.requiresPruning).toBe(true);
    // The prune plan says what each delete ends (regression: `- delete deployment ID` only).
    const prune = await cli(['plan', repo, '--prune'], s.env);
    expect(prune.stdout).toMatch(/Deployment\/seven-zip .*\n?.*live: Running, wave \d\/\d; its manifest left git/);
    expect((await cli(['apply', repo, '--prune', '--auto-approve'], s.env)).code).toBe(0);
    expect((await cli(['plan', repo, '--detailed-exitcode'], s.env)).code).toBe(0);
  });

  it('the agent is not in sync while it runs: Drifted PruningRequired, the gauge, the board and needs attention (regression: Ready, in sync, gone from rollouts)', async () => {
    const repo = await orphanedRepo();
    agent = await startAgent(['--source', repo, '--interval', '1h'], s.env, await tempDir('packsync-secret-'));
    const st = await agent.until('the first pass', (x) => x.passes >= 1);
    expect(st.history[0]?.result).toBe('Succeeded');
    expect(st.history[0]?.message).toContain('1 orphaned (requires pruning)');
    expect(agent.condition(st, 'Drifted')).toMatchObject({ status: 'True', reason: 'PruningRequired' });
    expect(agent.condition(st, 'Drifted')?.message).toContain(KEY);
    expect(st.rollouts.find((r) => r.deployment === KEY)).toMatchObject({ orphaned: true, status: 'Running' });
    expect(await agent.counter('packsync_orphaned_objects', {})).toBe(1);
    const page = await (await fetch(`${agent.base}/`)).text();
    const attention = /<div id=attention>(.*?)<\/div>/s.exec(page)?.[1] ?? '';
    expect(attention).toContain(`${KEY}</code>: requires pruning`);
  });
});

describe('a hold git asked for (spec.wave)', () => {
  it('is suspended by git on the board, not under needs attention, and not notified at info (regression: GateHeld to every info alert)', async () => {
    const repo = await copyExamples();
    rx = await startReceiver();
    const dir = await tempDir('packsync-notify-');
    await mkdir(join(dir, 'secrets'));
    await writeFile(join(dir, 'secrets', 'hmac'), 'spec-wave-hold-hmac-0123456789\n');
    const notifications = join(dir, 'notifications.yaml');
    await writeFile(
      notifications,
      `providers:\n  - name: hook\n    type: webhook\n    address: ${rx.url}/hook\n    secretFile: secrets/hmac\nalerts:\n  - provider: hook\n    severity: info\n`,
    );
    agent = await startAgent(['--source', repo, '--interval', '1h', '--notifications', notifications], s.env, dir);
    await agent.until('the first pass', (x) => x.passes >= 1);
    const st = await agent.reconcile();
    const rollout = st.rollouts.find((r) => r.deployment === KEY);
    expect(rollout?.gate?.verdict).toBe('holding');
    const page = await (await fetch(`${agent.base}/`)).text();
    expect(/<div id=attention>(.*?)<\/div>/s.exec(page)?.[1] ?? '').not.toContain(KEY);
    expect(page).toContain('Suspended by git at wave 2');
    expect(st.events.some((e) => e.reason === 'GateHeld' && e.object === KEY)).toBe(true);
    await agent.reconcile();
    const held = rx.requests.filter((r) => (JSON.parse(r.body) as { reason: string }).reason === 'GateHeld');
    expect(held).toEqual([]);
  });
});
