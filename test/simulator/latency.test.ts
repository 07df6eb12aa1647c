/**
 * The simulator's `--latency`: a request takes effect when it arrives and is answered once the latency
 * has passed since its arrival (docs/architecture.md, "The simulator"). Before, the route ran after
 * the wait, so sixteen calls in flight queued their work behind timers that fired together and a bare
 * client saw ~27 ms a call at 20 ms of latency (docs/performance.md, fourteenth session).
 */
import { describe, expect, it } from 'vitest';
import { until } from '../support/poll.js';
import { rawSim } from './http.js';

const LATENCY_MS = 1500;

describe('simulator latency', () => {
  it('applies a write on arrival and holds its answer until the latency has passed', async () => {
    const s = await rawSim({ latencyMs: LATENCY_MS });
    try {
      const t0 = performance.now();
      let answered = false;
      const create = s.call('POST', '/v1/flow/create', { name: 'Early' }).finally(() => (answered = true));
      // The admin surface has no latency: the flow is there while its create is still unanswered.
      const flows = await until('the flow to exist', async () => {
        const live = (await s.ok<{ flows: { id: string; name: string }[] }>('GET', '/_sim/state')).flows;
        return live.some((f) => f.name === 'Early') && live;
      });
      expect(flows.map((f) => f.name)).toEqual(['Early']);
      expect(answered).toBe(false);
      const journal = await s.ok<{ path: string; status: number }[]>('GET', '/_sim/journal');
      expect(journal).toEqual([expect.objectContaining({ path: '/v1/flow/create', status: 200 })]);
      const r = await create;
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.json)).toContain(flows[0]!.id);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(LATENCY_MS);
    } finally {
      await s.sim.close();
    }
  });

  it('answers a refused call (an injected 503) after the latency too, with no effect', async () => {
    const s = await rawSim({ latencyMs: LATENCY_MS });
    try {
      await s.ok('PUT', '/_sim/faults', '5xx=1');
      const t0 = performance.now();
      const r = await s.call('POST', '/v1/flow/create', { name: 'Refused' });
      expect(performance.now() - t0).toBeGreaterThanOrEqual(LATENCY_MS);
      expect(r.status).toBe(503);
      await s.ok('PUT', '/_sim/faults', 'none');
      expect((await s.ok<{ flows: unknown[] }>('GET', '/_sim/state')).flows).toEqual([]);
    } finally {
      await s.sim.close();
    }
  });
});
