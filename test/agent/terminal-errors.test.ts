/**
 * Failures are classified once (docs/errors.md): a rejected API key is terminal, so the agent stalls
 * with a clear status and schedules no retry; an unavailable service is transient, so it backs off
 * and retries. Regression: the loop used to back off on every failure alike, API_UNAUTHORIZED
 * included.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import { writeRepo } from '../support/manifests.js';
import { until } from '../support/poll.js';
import { freePort } from '../support/port.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';
import type { Spawned } from '../support/spawn-cli.js';

let sim: TestSim | undefined;
let agent: Spawned | undefined;
afterEach(async () => {
  agent?.child.kill('SIGTERM');
  await agent?.done;
  await sim?.close();
});

async function failedPass(base: string): Promise<AgentStatus> {
  const status = async (): Promise<AgentStatus> => (await (await fetch(`${base}/status`)).json()) as AgentStatus;
  return until(
    'a failed pass',
    async () => {
      const s = await status();
      return s.history[0]?.result === 'Failed' ? s : undefined;
    },
    20_000,
    { detail: status },
  );
}

/** Starts the simulator, lets `prepare` set it up, then the agent with the key `keyOf` picks. */
async function startAgent(keyOf: (sim: TestSim) => string, prepare?: (sim: TestSim) => Promise<unknown>): Promise<string> {
  const s = await startTestSimulator();
  sim = s;
  await prepare?.(s);
  const port = await freePort();
  agent = spawnCli(['run', '--source', await writeRepo(), '--interval', '1h', '--listen', `127.0.0.1:${port}`, '--log-level', 'silent'], {
    PACKSYNC_API_URL: s.url,
    PACKSYNC_API_KEY: keyOf(s),
    PACKSYNC_STATE_DIR: await tempDir('packsync-terminal-'),
  });
  return `http://127.0.0.1:${port}`;
}

describe('failure classes in the agent loop', () => {
  it('a rejected API key stalls the agent with TerminalError and schedules no retry', async () => {
    const base = await startAgent(() => 'not-the-key');
    const s = await failedPass(base);
    const stalled = s.conditions.find((c) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'TerminalError' });
    expect(stalled?.message).toMatch(/^API_UNAUTHORIZED: /);
    expect(stalled?.message).not.toContain('not-the-key');
    // No backoff retry: the next pass is the hourly interval's (up to 10% jitter), not seconds away.
    expect(Date.parse(s.nextPassAt ?? '') - Date.now()).toBeGreaterThan(30 * 60_000);
  });

  it('an unavailable service is transient: the agent backs off and has a retry scheduled', async () => {
    // The key is right: only the injected 5xx answers fail the pass.
    const base = await startAgent(
      (x) => x.key,
      (x) => x.admin('PUT', '/_sim/faults', { '5xx': 1 }),
    );
    const s = await failedPass(base);
    expect(s.conditions.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'False', reason: 'RetryScheduled' });
    expect(s.nextPassAt).not.toBeNull();
    expect(Date.parse(s.nextPassAt ?? '') - Date.now()).toBeLessThan(10 * 60_000);
  });
});
