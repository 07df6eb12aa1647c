/**
 * Regression (fleet-cli converge, docs/performance.md): every add-deployment made the next request
 * walk every running deployment of the account, so a 15,000-deployment converge slowed from 710 to
 * 400 calls a second as it went, and once rollouts ran, every request that found anything due walked
 * them all again. A change to one deployment now settles that deployment only, and a due time takes
 * only the deployments whose time came (a queue by due time); all are walked only after a change
 * whose reach is not known.
 */
import { describe, expect, it } from 'vitest';
import { Account, DURATIONS, newDeployment } from '../../src/simulator/account.js';
import { importedPackage } from '../../src/simulator/imported-package.js';
import type { FlowRec } from '../../src/simulator/account.js';
import { buildFixtures } from '../../src/simulator/fixtures.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 1);

function flow(i: number): FlowRec {
  const id = `flow-${i}`;
  const wave = (n: number, delayHours: number) => ({
    id: `${id}-w${n}`,
    flowId: id,
    index: n,
    name: `Wave ${n}`,
    delayHours,
    flags: 0,
    tenantIds: ['t'],
  });
  return { id, name: id, waves: [wave(1, 24), wave(2, 48)] } as unknown as FlowRec;
}

function started(a: Account, f: FlowRec, at: number): ReturnType<typeof newDeployment> {
  const d = newDeployment(f, 'p', '1.0', at);
  a.addDeployment(d);
  a.setStatus(d, 'Running', at);
  a.enterWave(d, 1, at, f.waves);
  return d;
}

/** 2,000 flows, each with a rollout started at T0, settled once. */
function runningFleet(fixtures = buildFixtures(1, 'small')): { a: Account; flows: FlowRec[]; running: ReturnType<typeof started>[] } {
  const a = new Account('a', fixtures);
  const flows = Array.from({ length: 2000 }, (_, i) => flow(i));
  for (const f of flows) a.flows.set(f.id, f);
  const running = flows.map((f) => started(a, f, T0));
  a.settle(T0 + 1);
  return { a, flows, running };
}

describe('simulator settle', () => {
  it('settles only the deployment a request changed, not every running one (add-deployment walked them all)', () => {
    const { a, flows, running } = runningFleet();
    const before = a.settleVisits;
    const extra = flow(2000);
    a.flows.set(extra.id, extra);
    const late = started(a, extra, T0 + 2);
    a.settle(T0 + 3);
    started(a, flows[0]!, T0 + 4);
    a.settle(T0 + 5);
    expect(a.settleVisits - before).toBeLessThanOrEqual(4);

    // Nothing due is missed: a day later every rollout is in wave 2, the late one included.
    a.settle(T0 + 25 * HOUR);
    expect([...running, late].every((d) => d.currentWave === 2)).toBe(true);
    a.settle(T0 + 73 * HOUR);
    expect(running.every((d) => d.status === 'Completed')).toBe(true);
    expect(late.status).toBe('Completed');
  });

  it('takes only the deployments whose time came, not every running one', () => {
    const a = new Account('a', buildFixtures(1, 'small'));
    const flows = Array.from({ length: 2000 }, (_, i) => flow(i));
    for (const f of flows) a.flows.set(f.id, f);
    // Started half a minute apart: a day and a quarter hour after the first, 31 have reached wave 2.
    const running = flows.map((f, i) => started(a, f, T0 + i * 30_000));
    a.settle(T0 + 2000 * 30_000);
    const before = a.settleVisits;
    a.settle(T0 + 24 * HOUR + 15 * 60_000);
    expect(a.settleVisits - before).toBeLessThanOrEqual(40);
    expect(running.filter((d) => d.currentWave === 2).length).toBe(31);
    a.settle(T0 + 200 * HOUR);
    expect(running.every((d) => d.status === 'Completed')).toBe(true);
  });

  it('an imported package does not make the next request walk every running deployment (patch-tuesday imports ran at ~270 calls a second)', () => {
    const fixtures = buildFixtures(1, 'small');
    const { a } = runningFleet(fixtures);
    const before = a.settleVisits;
    const app = fixtures.apps[0]!;
    const imported = Array.from({ length: 20 }, (_, i) => {
      const p = importedPackage(app, app.versions[0]!.version, {
        now: T0 + 2 + i,
        machine: true,
        user: false,
        latest: app.versions[0]!.version,
      });
      a.addPackage(p);
      a.settle(T0 + 3 + i);
      return p;
    });
    // Nor does a new flow (a converge creates 3,750 while the first rollouts run).
    for (let i = 0; i < 20; i++) {
      a.addFlow(flow(3000 + i));
      a.settle(T0 + 23 + i);
    }
    expect(a.settleVisits - before).toBeLessThanOrEqual(20);
    expect(imported.every((p) => p.state === 'Pending')).toBe(true);

    // Still processed on the service's schedule: queued, running, then completed.
    a.settle(T0 + 30 + DURATIONS.importQueued * 1000);
    expect(imported.every((p) => p.state === 'Running')).toBe(true);
    a.settle(T0 + 30 + (DURATIONS.importQueued + DURATIONS.importProcessing) * 1000);
    expect(imported.every((p) => p.state === 'Completed')).toBe(true);
  });

  it('a removed deployment does not make the next request walk every running deployment (each delete of a prune marked a rescan)', () => {
    const { a, running } = runningFleet();
    const before = a.settleVisits;
    const removed = running.slice(0, 20);
    for (const [i, d] of removed.entries()) {
      a.removeDeployment(d);
      a.settle(T0 + 2 + i);
    }
    expect(a.settleVisits - before).toBeLessThanOrEqual(20);
    expect(removed.every((d) => a.deploymentsOf(d.flowId).length === 0)).toBe(true);

    // The others still move on schedule, and a removed one is never settled again.
    a.settle(T0 + 25 * HOUR);
    expect(running.slice(20).every((d) => d.currentWave === 2)).toBe(true);
    expect(removed.every((d) => d.currentWave === 1)).toBe(true);
    a.settle(T0 + 73 * HOUR);
    expect(running.slice(20).every((d) => d.status === 'Completed')).toBe(true);
    expect(removed.every((d) => d.status === 'Running')).toBe(true);
  });
});
