/**
 * Journal entries carry the virtual clock too (`serviceTime`), the instant their answer's `Date`
 * header names, so a test or a person can line calls up with the promotion gate clocks that run on
 * it; `time` stays the real clock (review: the journal had only the real clock).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const DAY_MS = 86_400_000;
let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSimulator({ timeScale: 1 });
});
afterAll(async () => {
  await sim.close();
});

describe('journal entries and the virtual clock', () => {
  it('each entry has serviceTime, the virtual time its Date header says, beside the real time (regression: real clock only)', async () => {
    const call = (): Promise<Response> => fetch(`${sim.url}/v1/tenant`, { headers: { 'X-API-Key': sim.key } });
    const first = await call();
    await sim.advance(3 * 86_400);
    const second = await call();
    const [a, b] = await sim.journal();
    // The existing fields, unchanged, and the new one.
    expect(Object.keys(a!).sort()).toEqual(['method', 'path', 'query', 'seq', 'serviceTime', 'status', 'time']);
    expect(a).toMatchObject({ seq: 1, method: 'GET', path: '/v1/tenant', status: 200 });
    for (const [entry, res] of [
      [a!, first],
      [b!, second],
    ] as const) {
      expect(entry.serviceTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(new Date(entry.serviceTime).toUTCString()).toBe(res.headers.get('date'));
    }
    // The clock jump is in serviceTime, not in the real time.
    expect(Date.parse(b!.serviceTime) - Date.parse(a!.serviceTime)).toBeGreaterThanOrEqual(3 * DAY_MS);
    expect(Date.parse(b!.time) - Date.parse(a!.time)).toBeLessThan(3 * DAY_MS);
  });
});
