/**
 * The planner and change windows (docs/policy.md), pure: forward moves of a deployment wait, a
 * stop never does, and without the service's clock nothing is planned (never "inside the window").
 */
import { describe, expect, it } from 'vitest';
import { WINDOW_CLOCK_ERROR } from '../../src/plan/planner.js';
import { D1, F1, P1, convergedZip, dep, desired, flow, live, liveDeployment, liveFlow, livePackage, ops, pkg, run } from './fixtures.js';

const CLOSED = { timezone: 'Europe/Oslo', allow: ['Mon 08:00-09:00'] };

function liveAt(serviceTime: string | undefined, status: 'Running' | 'Stopped' | 'NotStarted') {
  const d = liveDeployment(D1, F1, P1, { status, currentWave: 1, waveCount: 3 });
  return live({
    packages: [livePackage(P1)],
    flows: [{ ...liveFlow(F1, 'zip', [d]), details: liveFlow(F1, 'zip', [d]) }],
    deployments: [d],
    ...(serviceTime ? { serviceTime } : {}),
  });
}

describe('plan under change windows', () => {
  it('holds start and skip-wave outside the window, records nothing as applied, and says until when', () => {
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip', { app: '7-Zip', windows: CLOSED })],
      deployments: [dep('zip', 'zip', 'zip', { wave: 2 })],
    });
    // The windows were recorded by an earlier apply (for `promote`): nothing at all is written now.
    const p = run(d, liveAt('2026-11-28T12:00:00Z', 'Stopped'), convergedZip({ state: 'stopped' }, { windows: CLOSED }));
    expect(ops(p)).toEqual([]);
    expect(p.objects.find((o) => o.key === 'Deployment/zip')).toMatchObject({ change: 'waiting' });
    expect(p.windows).toEqual([
      expect.objectContaining({
        key: 'Deployment/zip',
        open: false,
        until: '2026-11-30T07:00:00.000Z',
        held: ['start', 'skip wave 1 → 2'],
      }),
    ]);
  });

  it('holds the start after `resume` of a gate-stopped deployment until the window opens (issue 23.1)', () => {
    const promotion = { soak: '6h', minDevices: 20, maxFailureRate: '10%' };
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip', { app: '7-Zip', windows: CLOSED })],
      deployments: [dep('zip', 'zip', 'zip', { promotion })],
    });
    // The gate stopped it (applied state `stopped`), then `packsync resume` released the hold.
    const inv = convergedZip(
      { promotion },
      {
        appliedState: 'stopped',
        gateLog: [
          { at: '2026-11-27T10:00:00.000Z', action: 'stop', wave: 1, by: 'gate', reason: 'Contoso: 50.0% failed > 10.0%' },
          { at: '2026-11-28T11:00:00.000Z', action: 'resume', wave: 1, by: 'command', reason: 'hotfix' },
        ],
      },
    );
    const closed = run(d, liveAt('2026-11-28T12:00:00Z', 'Stopped'), inv);
    expect(ops(closed)).not.toContain('Deployment/zip:start');
    expect(closed.windows).toEqual([
      expect.objectContaining({ key: 'Deployment/zip', open: false, held: expect.arrayContaining(['start']) }),
    ]);
    // In the window (Monday 08:30 Oslo) the same resume starts it.
    expect(ops(run(d, liveAt('2026-11-30T07:30:00Z', 'Stopped'), inv))).toContain('Deployment/zip:start');
  });

  it('break-glass-add-reason: a new deployment added through a closed window with --ignore-windows says so on the object (regression: no reason line)', () => {
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip', { app: '7-Zip', windows: CLOSED })],
      deployments: [dep('zip', 'zip', 'zip')],
    });
    const inv = convergedZip({ state: 'running' });
    delete inv.objects['Deployment/zip'];
    const empty = live({
      packages: [livePackage(P1)],
      flows: [{ ...liveFlow(F1, 'zip', []), details: liveFlow(F1, 'zip', []) }],
      deployments: [],
      serviceTime: '2026-11-28T12:00:00Z',
    });
    const p = run(d, empty, inv, { ignoreWindows: { actor: 'Ada', reason: 'CVE hotfix' } });
    const o = p.objects.find((x) => x.key === 'Deployment/zip');
    expect(o?.change).toBe('create');
    expect(o?.reasons).toEqual([expect.stringMatching(/^window closed \(.*\): moved anyway, --ignore-windows by Ada: CVE hotfix$/)]);
  });

  it('never holds a stop back', () => {
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip', { app: '7-Zip', windows: CLOSED })],
      deployments: [dep('zip', 'zip', 'zip', { state: 'stopped' })],
    });
    const p = run(d, liveAt('2026-11-28T12:00:00Z', 'Running'), convergedZip({ state: 'running' }));
    expect(ops(p)).toContain('Deployment/zip:stop');
  });

  it('a deployment’s windows replace its flow’s: an open deployment window lets it start', () => {
    const open = { timezone: 'UTC' };
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip', { app: '7-Zip', windows: CLOSED })],
      deployments: [dep('zip', 'zip', 'zip', { windows: open })],
    });
    const p = run(d, liveAt('2026-11-28T12:00:00Z', 'Stopped'), convergedZip({ state: 'stopped' }));
    expect(ops(p)).toContain('Deployment/zip:start');
  });

  it('without the service clock (no Date header) nothing is planned: an error of the pass', () => {
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip', { app: '7-Zip', windows: CLOSED })],
      deployments: [dep('zip', 'zip', 'zip')],
    });
    const p = run(d, liveAt(undefined, 'Stopped'), convergedZip({ state: 'stopped' }));
    expect(p.errors).toEqual([WINDOW_CLOCK_ERROR]);
    expect(p.actions).toEqual([]);
  });
});
