/**
 * `packsync simulator --latency 20` answers no call before 20 ms have passed since it arrived,
 * however many arrive together (src/simulator/dispatch.ts `until`). The benchmarks' bounds are
 * `calls × latency ÷ in flight`: an answer that came early made every figure measured against this
 * simulator look better than the latency it was told to add.
 */
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startSimulatorProcess } from '../support/sim.js';

const LATENCY_MS = 20;
const IN_FLIGHT = 16;
const CALLS = 1600;

describe('simulator latency under load', () => {
  it('never answers before the latency has passed, with sixteen calls in flight (regression: ~10 % of answers came 0.1–1.3 ms early)', async () => {
    const sim = await startSimulatorProcess({ latencyMs: LATENCY_MS });
    const agent = new Agent({ connections: IN_FLIGHT, pipelining: 1 });
    try {
      const took: number[] = [];
      let started = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (started < CALLS) {
            started++;
            const t0 = performance.now();
            const r = await request(`${sim.url}/v1/tenant`, { dispatcher: agent, headers: { 'x-api-key': sim.key } });
            await r.body.text();
            took.push(performance.now() - t0);
            expect(r.statusCode).toBe(200);
          }
        }),
      );
      expect(took).toHaveLength(CALLS);
      // Measured from before the call was sent: what the simulator held it for, and more.
      expect(took.filter((ms) => ms < LATENCY_MS)).toEqual([]);
    } finally {
      await agent.close();
      await sim.close();
    }
  }, 60_000);
});
