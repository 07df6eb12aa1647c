/**
 * Regression: `packsync_ready` is documented as `/readyz`, but the gauge was set only when a pass
 * finished: through a long first pass `/readyz` answered 200 (the first pass counts as started)
 * while `/metrics` said `packsync_ready 0`. It is now read at scrape time from the same function.
 * Real agent process, real git, the simulator holding the pass's flow reads (its `latency` fault).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { manifestRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let agent: RunningAgent;

beforeAll(async () => {
  sim = await startTestSimulator();
});

afterAll(async () => {
  await agent?.stop();
  await sim?.close();
});

const reconciling = (s: Awaited<ReturnType<RunningAgent['status']>>): boolean =>
  s.conditions.find((c) => c.type === 'Reconciling')?.status === 'True';

describe('packsync_ready', () => {
  it('ready-metric-as-readyz: says 1 while /readyz says ready during a long first pass, and after it', async () => {
    const repo = await manifestRepo();
    // Every flow read of the first pass is held 5 s by the simulator: the pass is under way for that long.
    await sim.admin('PUT', '/_sim/faults', 'latency=5s,path=/v1/flow,method=GET');
    const stateDir = await tempDir('packsync-ready-metric-');
    agent = await startAgent(
      ['--source', repo.fileUrl, '--ref', 'main'],
      { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir },
      stateDir,
    );
    const during = await agent.until('the first pass under way', reconciling, 15_000);
    expect(during.passes).toBe(0);
    const readyz = await fetch(`${agent.base}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await agent.counter('packsync_ready', {})).toBe(1);
    // Still the first pass: both answers above were given while it ran.
    expect((await agent.status()).passes).toBe(0);

    await sim.admin('PUT', '/_sim/faults', 'none');
    await agent.until('the first pass done', (s) => s.passes >= 1 && !reconciling(s), 30_000);
    expect((await fetch(`${agent.base}/readyz`)).status).toBe(200);
    expect(await agent.counter('packsync_ready', {})).toBe(1);
  });
});
