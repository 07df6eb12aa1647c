/** Wave live data (docs/api-model.md): devices report over ~6 virtual hours by the outcome rules, bound to the current deployment. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildFixtures } from '../../src/simulator/fixtures.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { rawSim } from './http.js';
import type { Raw } from './http.js';

let s: Raw;
beforeEach(async () => {
  s = await rawSim({ timeScale: 0 });
});
afterEach(async () => {
  await s.sim.close();
});

const SEVEN_ZIP = fixtureId(1, 'app', '7-Zip');
const ALL_AT_ONCE = fixtureId(1, 'patch-group', 'Everyone at once');
const CONTOSO = fixtureId(1, 'tenant', 'contoso.onmicrosoft.com');
const FABRIKAM = fixtureId(1, 'tenant', 'fabrikam.onmicrosoft.com');
const TAILSPIN = fixtureId(1, 'tenant', 'tailspintoys.onmicrosoft.com');
const HOUR = 3600;

interface Live {
  waveId: string;
  deploymentId: string | null;
  tenants: { tenantId: string; installed: number; failed: number; pending: number; notApplicable: number }[];
}

const advance = (seconds: number): Promise<unknown> => s.ok('POST', '/_sim/clock', { advanceSeconds: seconds });

async function rollout(version = '24.08'): Promise<{ flowId: string; waveId: string; dep: string }> {
  const pkg = await s.ok<string>('POST', `/v1/app/import/${SEVEN_ZIP}?version=${version}`);
  await advance(60);
  const flowId = await s.ok<string>('POST', '/v1/flow/create', { appId: SEVEN_ZIP, name: `7-Zip ${version}`, patchGroupId: ALL_AT_ONCE });
  const dep = await s.ok<string>('POST', `/v1/flow/${flowId}/add-deployment`, { packageId: pkg, startNow: true });
  const flow = await s.ok<{ waves: { id: string }[] }>('GET', `/v1/flow/${flowId}`);
  return { flowId, waveId: flow.waves[0]!.id, dep };
}

const live = (waveId: string): Promise<Live> => s.ok<Live>('GET', `/v1/flow/wave/${waveId}/live`);
const of = (l: Live, tenant: string): Live['tenants'][number] => l.tenants.find((t) => t.tenantId === tenant)!;

describe('wave live data', () => {
  it('sends the virtual clock in the Date header of every answer (API, admin, errors)', async () => {
    await advance(5 * 24 * HOUR);
    const clock = await s.ok<{ epochMs: number }>('GET', '/_sim/clock');
    for (const path of ['/v1/tenant', '/_sim/clock', '/v1/flow/00000000-0000-4000-8000-000000000000']) {
      const r = await s.call('GET', path);
      const date = Date.parse(r.headers.get('date') ?? '');
      expect(Math.abs(date - clock.epochMs)).toBeLessThan(2000);
      expect(Math.abs(date - Date.now())).toBeGreaterThan(4 * 24 * 3_600_000);
    }
  });

  it('reports nothing for 30 minutes, then every applicable device within 6 hours; no-consent tenants report nothing', async () => {
    const { waveId, dep } = await rollout();
    await advance(20 * 60);
    const early = await live(waveId);
    expect(early.deploymentId).toBe(dep);
    expect(of(early, CONTOSO)).toMatchObject({ installed: 0, failed: 0, pending: 228, notApplicable: 12 });
    await advance(2 * HOUR);
    const mid = of(await live(waveId), CONTOSO);
    expect(mid.installed + mid.failed).toBeGreaterThan(0);
    expect(mid.pending).toBeGreaterThan(0);
    await advance(4 * HOUR);
    const done = await live(waveId);
    expect(of(done, CONTOSO)).toMatchObject({ pending: 0 });
    expect(of(done, CONTOSO).installed + of(done, CONTOSO).failed).toBe(228);
    expect(of(done, FABRIKAM).installed + of(done, FABRIKAM).failed).toBe(114);
    expect(of(done, TAILSPIN)).toEqual({ tenantId: TAILSPIN, installed: 0, failed: 0, pending: 0, notApplicable: 0 });
    // The default outcome: about 2 % fail.
    expect(of(done, CONTOSO).failed).toBeLessThan(15);
  });

  it('counts are a function of the clock, never of how often they were read', async () => {
    const a = await rollout('24.08');
    await advance(3 * HOUR);
    const once = await live(a.waveId);
    const again = await live(a.waveId);
    expect(again.tenants).toEqual(once.tenants);
    // Reads on the way change nothing: the figures at 4 h are the same polled or not.
    for (let i = 0; i < 6; i++) {
      await advance(600);
      await live(a.waveId);
    }
    const polled = await live(a.waveId);
    expect(polled.tenants.map((t) => t.installed + t.failed + t.pending)).toEqual(
      once.tenants.map((t) => t.installed + t.failed + t.pending),
    );
    expect(of(polled, CONTOSO).installed).toBeGreaterThan(of(once, CONTOSO).installed);
  });

  it('applies PUT /_sim/outcomes rules (first match wins) only to devices that have not reported yet', async () => {
    const { waveId } = await rollout();
    await advance(2 * HOUR);
    const before = of(await live(waveId), FABRIKAM);
    const rules = {
      default: { failureRate: 0 },
      rules: [
        { tenant: 'fabrikam.onmicrosoft.com', failureRate: 1 },
        { tenant: FABRIKAM, failureRate: 0 },
      ],
    };
    expect(await s.ok('PUT', '/_sim/outcomes', rules)).toEqual(rules);
    expect(await s.ok('GET', '/_sim/outcomes')).toEqual(rules);
    await advance(5 * HOUR);
    const after = of(await live(waveId), FABRIKAM);
    expect(after.installed).toBe(before.installed);
    expect(after.failed).toBe(114 - before.installed);
    const bad = await s.call('PUT', '/_sim/outcomes', { default: { failureRate: 2 } });
    expect(bad.status).toBe(400);
  });

  it('freezes a stopped deployment’s counts and resumes them when it starts again', async () => {
    const { waveId, dep } = await rollout();
    await advance(2 * HOUR);
    await s.ok('POST', `/v1/flow/deployment/${dep}/stop`);
    const frozen = await live(waveId);
    await advance(10 * HOUR);
    expect((await live(waveId)).tenants).toEqual(frozen.tenants);
    await s.ok('POST', `/v1/flow/deployment/${dep}/start`);
    await advance(HOUR);
    expect(of(await live(waveId), CONTOSO).installed).toBeGreaterThan(of(frozen, CONTOSO).installed);
  });

  it('binds counts to the flow’s current deployment: a newer running one starts from zero', async () => {
    const { flowId, waveId, dep } = await rollout('24.07');
    await advance(7 * HOUR);
    expect((await live(waveId)).deploymentId).toBe(dep);
    const pkg = await s.ok<string>('POST', `/v1/app/import/${SEVEN_ZIP}?version=24.08`);
    await advance(60);
    const next = await s.ok<string>('POST', `/v1/flow/${flowId}/add-deployment`, { packageId: pkg, startNow: true });
    const now = await live(waveId);
    expect(now.deploymentId).toBe(next);
    expect(of(now, CONTOSO)).toMatchObject({ installed: 0, failed: 0 });
  });

  it('faults can be confined to one path: 5xx=1,path=/live fails only live reads', async () => {
    const { waveId } = await rollout();
    await s.ok('PUT', '/_sim/faults', '5xx=1,path=/live');
    expect((await s.call('GET', `/v1/flow/wave/${waveId}/live`)).status).toBeGreaterThanOrEqual(500);
    expect((await s.call('GET', '/v1/tenant')).status).toBe(200);
  });
});

describe('devices per tenant (fixtures)', () => {
  it('gives every tenant of both fleets a fixed device count', () => {
    const small = buildFixtures(1, 'small');
    expect(small.tenants.map((t) => small.devices.get(t.id))).toEqual([240, 120, 600, 40]);
    const large = buildFixtures(1, 'large');
    expect(large.tenants).toHaveLength(50);
    for (const t of large.tenants) expect(large.devices.get(t.id)).toBeGreaterThanOrEqual(20);
    expect(buildFixtures(1, 'large').devices).toEqual(large.devices);
  });
});
