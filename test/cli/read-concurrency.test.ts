/**
 * Live-state reads use the API client's slots (docs/reconcile.md): without `--read-concurrency`, a
 * pass reads with as many requests in flight as `--api-concurrency` allows (regression: reads were
 * capped at 8 whatever `--api-concurrency` said, so a large fleet's no-op left half of the client idle
 * — docs/performance.md "fleet-cli"). A counting proxy in front of the simulator sees the peak.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeFleet } from '../support/fleet.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim | undefined;
let proxy: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
  await sim?.close();
});

/** Forwards to `target`, holding each flow read `holdMs` so reads overlap, and keeps the peak in flight. */
async function countingProxy(target: string, holdMs: number): Promise<{ url: string; peak: () => number }> {
  let inFlight = 0;
  let peak = 0;
  proxy = createServer((req, res) => {
    const isFlowRead = req.method === 'GET' && /^\/v1\/flow\/[0-9a-f-]{36}$/i.test((req.url ?? '').split('?')[0] ?? '');
    if (isFlowRead) peak = Math.max(peak, ++inFlight);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
    req.resume();
    void (async () => {
      const up = await fetch(`${target}${req.url ?? '/'}`, { headers });
      const text = await up.text();
      if (isFlowRead) await new Promise((r) => setTimeout(r, holdMs));
      const out: Record<string, string> = {};
      up.headers.forEach((v, k) => {
        if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding') out[k] = v;
      });
      if (isFlowRead) inFlight--;
      res.writeHead(up.status, out).end(text);
    })();
  });
  await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, peak: () => peak };
}

describe('live-state reads', () => {
  it('use every slot --api-concurrency gives when --read-concurrency is not set', async () => {
    const s = await simEnv({ fleet: 'large' });
    sim = s.sim;
    const repo = (await writeFleet({ flows: 40, deploymentsPerFlow: 1, packages: 40 })).dir;
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
    const counted = await countingProxy(s.sim.url, 100);
    const env = { ...s.env, PACKSYNC_API_URL: counted.url };
    expect((await cli(['plan', repo, '--api-concurrency', '16'], env)).code).toBe(0);
    expect(counted.peak()).toBeGreaterThan(8);
    expect(counted.peak()).toBeLessThanOrEqual(16);
  });
});
