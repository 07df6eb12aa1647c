/**
 * The next pass on /status and the page names the schedule's next run when one is set. Regression:
 * `nextPassAt` told only the loop's own retries and wake-ups, so with `--interval 30s` a converged
 * agent said "Next pass: on the next trigger" (`nextPassAt: null`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim | undefined;
let agent: RunningAgent | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await sim?.close();
});

async function convergedAgent(schedule: string[]): Promise<RunningAgent> {
  sim = await startTestSimulator();
  const stateDir = await tempDir('packsync-next-pass-');
  const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir };
  agent = await startAgent(['--source', await writeRepo(), ...schedule], env, stateDir);
  await agent.until('a converged pass', (s) => s.history[0]?.result === 'Succeeded');
  return agent;
}

describe('the next pass with a schedule', () => {
  it('with --interval 30s, a converged agent names the interval’s next run on /status and the page (regression: on the next trigger)', async () => {
    const a = await convergedAgent(['--interval', '30s']);
    const s = await a.status();
    const ahead = Date.parse(s.nextPassAt ?? '') - Date.now();
    expect(ahead).toBeGreaterThan(0);
    expect(ahead).toBeLessThanOrEqual(33_000);
    const page = await (await fetch(`${a.base}/`)).text();
    expect(page).toContain('Next pass: ');
    expect(page).not.toContain('on the next trigger');
  });

  it('with --schedule, the cron expression’s next run is the next pass', async () => {
    const a = await convergedAgent(['--schedule', '0 0 1 1 *']);
    const next = new Date((await a.status()).nextPassAt ?? '');
    // Midnight of 1 January: the next one after now, in the agent's local time.
    expect([next.getMonth(), next.getDate(), next.getHours(), next.getMinutes()]).toEqual([0, 1, 0, 0]);
    expect(next.getTime()).toBeGreaterThan(Date.now());
  });

  it('without a schedule, nothing is due once converged: on the next trigger', async () => {
    const a = await convergedAgent([]);
    expect((await a.status()).nextPassAt).toBeNull();
  });
});
