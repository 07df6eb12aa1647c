/** Triggers and the loop: watch, schedule, coalescing of triggers during a pass, backoff recovery. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/loop.js';
import type { AgentOptions } from '../../src/agent/loop.js';
import { createMetrics } from '../../src/agent/http/metrics.js';
import { StatusTracker } from '../../src/agent/http/status.js';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import { parseDuration } from '../../src/agent/triggers.js';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { deploymentsYaml, writeRepo } from '../support/manifests.js';
import { until } from '../support/poll.js';
import { freePort } from '../support/port.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';

let sim: TestSim | null = null;
afterEach(async () => {
  await sim?.close();
  sim = null;
});

/** An in-process agent over a directory source, against `s`. */
async function inProcessAgent(
  s: TestSim,
  repo: string,
  apiOpts: { retry?: { maxAttempts: number } } = {},
  extra: Partial<AgentOptions> = {},
): Promise<{ agent: Agent; status: StatusTracker; api: ApiClient }> {
  const api = createApiClient({ baseUrl: s.url, apiKey: s.key, ...apiOpts });
  const status = new StatusTracker({ source: repo });
  const agent = new Agent({
    source: { sync: () => Promise.resolve({ dir: repo, revision: null, label: repo }), ref: null },
    api,
    stateDir: await tempDir('packsync-state-'),
    planOptions: DEFAULT_PLAN_OPTIONS,
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(false),
    status,
    passTimeoutMs: 60_000,
    ...extra,
  });
  return { agent, status, api };
}

describe('triggers', () => {
  it('--watch reconciles a directory source when a manifest changes; --schedule fires on its cron', async () => {
    sim = await startTestSimulator();
    const repo = await writeRepo();
    const port = await freePort();
    const state = await tempDir('packsync-state-');
    const p = spawnCli(
      ['run', '--source', repo, '--watch', '--schedule', '*/2 * * * * *', '--listen', `127.0.0.1:${port}`, '--log-level', 'warn'],
      {
        PACKSYNC_API_URL: sim.url,
        PACKSYNC_API_KEY: sim.key,
        PACKSYNC_STATE_DIR: state,
      },
    );
    try {
      const status = async (): Promise<AgentStatus> => (await (await fetch(`http://127.0.0.1:${port}/status`)).json()) as AgentStatus;
      const first = await until('the first apply', async () => ((await status()).lastAppliedRevision ? status() : undefined), 15_000);
      // A schedule tick during the startup pass makes its waits give way (the agent never blocks
      // on processing), so the deployments may come one pass later: converged means they exist.
      await until('both deployments', async () => (await sim!.state()).deployments.length === 2, 15_000);
      const before = (await sim.writes()).length;
      await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
      await until('the edit applied', async () => (await status()).lastAppliedRevision !== first.lastAppliedRevision, 15_000);
      // The pass that applies the edit may find a deployment still processing in the service: that
      // pass succeeds with the stop waiting, and the requeued pass stops it (a slow CI run did so).
      const STOP = 'POST /v1/flow/deployment/{id}/stop';
      await until('the stop', async () => (await sim!.writes()).slice(before).includes(STOP), 15_000);
      expect((await sim.writes()).slice(before)).toEqual([STOP]);
      const s = await until(
        'a schedule pass and a watch pass',
        async () => {
          const x = await status();
          return x.history.some((h) => h.trigger === 'schedule') && x.history.some((h) => h.trigger === 'watch') ? x : undefined;
        },
        15_000,
      );
      expect(s.history.every((h) => h.result === 'Succeeded')).toBe(true);
    } finally {
      p.child.kill('SIGTERM');
      expect((await p.done).code).toBe(0);
    }
  });

  it('coalesces triggers that arrive during a pass into exactly one follow-up pass', async () => {
    sim = await startTestSimulator({ latencyMs: 30 });
    const repo = await writeRepo();
    const { agent, status, api } = await inProcessAgent(sim, repo, {});
    agent.trigger('a');
    for (let i = 0; i < 5; i++) agent.trigger(`during-${i}`);
    await agent.idle();
    expect(agent.ready()).toBe(true);
    await agent.stop();
    await api.close();
    expect(status.status.history.map((h) => h.trigger)).toEqual(['during-0', 'a']);
    expect(status.status.history.every((h) => h.result === 'Succeeded')).toBe(true);
    // A stopped loop cannot do its job.
    expect(agent.ready()).toBe(false);
  });

  it('backs off after a failure and recovers on its own when the service comes back', async () => {
    sim = await startTestSimulator();
    const repo = await writeRepo();
    await sim.admin('PUT', '/_sim/faults', '5xx=1');
    const { agent, status, api } = await inProcessAgent(sim, repo, { retry: { maxAttempts: 1 } }, { backoff: { baseMs: 50, maxMs: 200 } });
    agent.trigger('startup');
    await agent.idle();
    expect(status.status.history[0]?.result).toBe('Failed');
    expect(status.condition('Ready')).toMatchObject({ status: 'False' });
    await sim.admin('PUT', '/_sim/faults', 'none');
    await until('a pass that succeeded', () => status.status.history[0]?.result === 'Succeeded', 15_000, { intervalMs: 20 });
    expect(status.status.history[0]?.trigger).toBe('retry after failure');
    expect(status.condition('Ready')).toMatchObject({ status: 'True', reason: 'ReconciliationSucceeded' });
    await agent.stop();
    await api.close();
  });

  it('parses durations and refuses nonsense with the flag name', () => {
    expect(parseDuration('5m', '--interval')).toBe(300_000);
    expect(parseDuration('1500ms', '--pass-timeout')).toBe(1500);
    expect(() => parseDuration('soon', '--interval')).toThrow(/--interval "soon" is not a duration/);
  });
});

describe('run --once', () => {
  it('runs one pass and exits 0 in sync, 1 when the revision is invalid (for CronJobs and CI)', async () => {
    sim = await startTestSimulator();
    const repo = await writeRepo();
    const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
    const ok = await spawnCli(['run', '--source', repo, '--once', '--log-level', 'silent'], env).done;
    expect(ok.code).toBe(0);
    const okLine = JSON.parse(ok.stdout.trim());
    expect(okLine).toMatchObject({ result: 'Succeeded', revision: expect.stringMatching(/^sha256:[0-9a-f]+$/) as string });
    // The message names the same revision the line reports.
    expect(okLine.message).toContain(okLine.revision);
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml().replace('state: running', 'state: runing'));
    const bad = await spawnCli(['run', '--source', repo, '--once', '--log-level', 'silent'], env).done;
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout.trim())).toMatchObject({
      result: 'Invalid',
      message: expect.stringMatching(/deployments\.yaml:\d+:\d+/) as string,
    });
  });
});

describe('run without a trigger', () => {
  it('refuses with a message naming the triggers and exits 1, before any pass', async () => {
    const repo = await writeRepo();
    const r = await spawnCli(['run', '--source', repo, '--log-level', 'silent'], {
      PACKSYNC_API_URL: 'http://127.0.0.1:9',
      PACKSYNC_API_KEY: 'k',
      PACKSYNC_STATE_DIR: await tempDir('packsync-state-'),
    }).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/run needs a trigger: --interval DURATION, --schedule CRON, --watch .*--listen HOST:PORT .*--once/);
    expect(r.stdout).toBe('');
  });
});

describe('per-object heal backoff', () => {
  it('heals drift at once, then holds the next heal of that object (reported only) until its backoff ends, and schedules a pass for then', async () => {
    sim = await startTestSimulator();
    const repo = await writeRepo();
    // The loop's clock moves only when the test says: the hold is a minute long and takes no time.
    let now = Date.parse('2026-11-22T12:00:00Z');
    const { agent, status, api } = await inProcessAgent(sim, repo, {}, { healBackoff: { baseMs: 60_000, maxMs: 600_000 }, now: () => now });
    try {
      const pass = async (reason: string): Promise<void> => {
        agent.trigger(reason);
        await agent.idle();
      };
      await pass('startup');
      const s = sim;
      const running = (await s.state()).deployments.find((d) => d.status === 'Running')!;
      const starts = async (): Promise<number> => (await s.writes()).filter((w) => w.endsWith('/start')).length;
      const stopOutside = (): Promise<unknown> => s.admin('POST', `/_sim/deployments/${running.id}/status`, { status: 'Stopped' });

      await stopOutside();
      await pass('someone stopped it');
      expect(await starts()).toBe(1); // healed at once
      const healedAt = now;
      await stopOutside();
      await pass('they stopped it again');
      expect(await starts()).toBe(1); // held: reported, not healed
      expect(status.status.objects.find((o) => o.key === 'Deployment/seven-zip-24-08')).toMatchObject({
        drift: true,
        driftHandling: 'held',
      });
      expect(status.status.events.some((e) => e.reason === 'DriftDetected' && e.message.includes('heal held by backoff'))).toBe(true);
      // The agent schedules a pass for when the hold ends (10 ms after, so the hold has surely ended).
      expect(status.status.nextPassAt).toBe(new Date(healedAt + 60_000 + 10).toISOString());

      now = healedAt + 59_999;
      await pass('a push just before the hold ends');
      expect(await starts()).toBe(1);
      now = healedAt + 60_000;
      await pass('heal backoff elapsed');
      expect(await starts()).toBe(2);
      expect((await s.state()).deployments.find((d) => d.id === running.id)?.status).toBe('Running');
      // Healed twice in a row: the next hold is twice as long.
      expect(status.status.nextPassAt).toBe(new Date(now + 120_000 + 10).toISOString());
    } finally {
      await agent.stop();
      await api.close();
    }
  });
});
