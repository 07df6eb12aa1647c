/**
 * Regression: `packsync apply` printed Node's "MaxListenersExceededWarning: Possible EventTarget
 * memory leak detected. 11 abort listeners added to [AbortSignal]" on every converge with more than
 * ten actions in flight: one abort signal is shared by every action and request of the apply (and
 * of an agent pass) by design, so it may have as many listeners as there are calls in flight.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { writeFleet } from '../support/fleet.js';
import { simEnv } from '../support/sim.js';
import type { SimEnv } from '../support/sim.js';
import { finishAdvancing, spawnCli } from '../support/spawn-cli.js';

let s: SimEnv | undefined;
afterEach(async () => {
  await s?.sim.close();
  s = undefined;
});

describe('the apply abort signal', () => {
  it('a converge with many actions in flight prints no listener-leak warning', async () => {
    s = await simEnv({ fleet: 'large' });
    const fleet = await writeFleet({ flows: 12, deploymentsPerFlow: 2, packages: 24 });
    const run = await finishAdvancing(spawnCli(['apply', fleet.dir, '--auto-approve'], s.env), s.sim);
    expect(run.code, run.stderr).toBe(0);
    expect((await s.sim.state()).deployments.length).toBe(24);
    expect(run.stderr).not.toMatch(/MaxListenersExceededWarning/);
  });
});
