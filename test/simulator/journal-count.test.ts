import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(async () => {
  await sim.close();
});

describe('GET /_sim/journal?count=true', () => {
  it('answers the journal length without the entries (all calls, or writes only)', async () => {
    await fetch(`${sim.url}/v1/tenant`, { headers: { 'X-API-Key': sim.key } });
    await fetch(`${sim.url}/v1/flow`, { headers: { 'X-API-Key': sim.key } });
    const all = await sim.journal();
    expect(all.length).toBe(2);
    expect(await sim.admin('GET', '/_sim/journal?count=true')).toEqual({ count: 2 });
    expect(await sim.admin('GET', '/_sim/journal?writes=true&count=true')).toEqual({ count: 0 });
  });
});
