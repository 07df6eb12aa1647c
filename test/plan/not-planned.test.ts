import { describe, expect, it } from 'vitest';
import type { DesiredModel } from '../../src/manifests/model.js';
import type { Inventory } from '../../src/state/inventory-types.js';
import { dep, desired, emptyInventory, flow, live, liveDeployment, liveFlow, livePackage, pkg, run, upload } from './fixtures.js';

const P1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const F1 = 'bbbbbbbb-0000-4000-8000-000000000001';
const D1 = 'cccccccc-0000-4000-8000-000000000001';
const IDS: Record<string, string> = { Package: P1, Flow: F1, Deployment: D1 };

/** The state a converged apply of `d` leaves: every object owned under the ids above. */
function owned(d: DesiredModel): Inventory {
  const inv = emptyInventory();
  for (const a of run(d, live()).actions) {
    if (!('record' in a) || a.op === 'tenant-upload') continue;
    const kind = a.key.slice(0, a.key.indexOf('/')) as 'Package';
    const extra = a.op === 'add-deployment' ? { flowId: F1, packageId: P1, appliedState: a.record.appliedState } : {};
    inv.objects[a.key] = {
      kind,
      name: 'zip',
      id: IDS[kind]!,
      specHash: a.record.specHash,
      spec: a.record.spec,
      revision: 'r0',
      updatedAt: 'x',
      ...extra,
    };
  }
  return inv;
}

const liveAll = (status = 'Running') => {
  const d = liveDeployment(D1, F1, P1, { status: status as 'Running' });
  return live({
    packages: [livePackage(P1)],
    flows: [{ ...liveFlow(F1, 'zip', [d]), details: liveFlow(F1, 'zip', [d]) }],
    deployments: [d],
  });
};
const all = (suspend: { pkg?: boolean; flow?: boolean }, state: 'running' | 'stopped' = 'running'): DesiredModel =>
  desired({
    packages: [pkg('zip', '7-Zip', '24.08', suspend.pkg ? { suspend: true } : {})],
    flows: [flow('zip', { app: '7-Zip', ...(suspend.flow ? { suspend: true } : {}) })],
    deployments: [dep('zip', 'zip', 'zip', { state })],
  });

describe('objects not planned', () => {
  it('skips a suspended object of every kind the same way: reason "suspended", no action', () => {
    const d = desired({
      packages: [pkg('zip', '7-Zip', '24.08', { suspend: true })],
      flows: [flow('zip', { app: '7-Zip', suspend: true })],
      deployments: [dep('zip', 'zip', 'zip', { suspend: true })],
      tenantUploads: [{ ...upload('u', 'Contoso', 'zip'), spec: { tenant: 'Contoso', package: 'zip', suspend: true } }],
    });
    const p = run(d, liveAll(), owned(d));
    expect(p.objects.map((o) => `${o.key} ${o.change} ${o.reasons.join()}`)).toEqual([
      'Deployment/zip skipped suspended',
      'Flow/zip skipped suspended',
      'Package/zip skipped suspended',
      'TenantUpload/u skipped suspended',
    ]);
    expect(p.actions).toEqual([]);
  });

  it('lets dependents of a suspended package or flow use its live object as it is', () => {
    for (const suspend of [{ pkg: true }, { flow: true }]) {
      const d = all(suspend, 'stopped');
      const p = run(d, liveAll('Running'), owned(all({})));
      expect(p.objects.find((o) => o.key === 'Deployment/zip')?.change).toBe('update');
      expect(p.actions.map((a) => `${a.key}:${a.op}`)).toEqual(['Deployment/zip:stop', 'Deployment/zip:record']);
    }
  });

  it('blocks dependents of a suspended package or flow that has no live object', () => {
    const pkgGone = run(all({ pkg: true }), live(), owned(all({})));
    expect(pkgGone.objects.map((o) => `${o.key} ${o.change} ${o.reasons.join()}`)).toEqual([
      'Deployment/zip skipped not planned: Package/zip is suspended',
      'Flow/zip create live flow bbbbbbbb-0000-4000-8000-000000000001 not found (deleted outside packsync); creating it again',
      'Package/zip skipped suspended',
    ]);
    const flowGone = run(all({ flow: true }), live({ packages: [livePackage(P1)] }), owned(all({})));
    expect(flowGone.objects.find((o) => o.key === 'Deployment/zip')?.reasons).toEqual(['not planned: Flow/zip is suspended']);
    expect(flowGone.actions).toEqual([]);
  });

  it('fails an object whose names do not resolve at the field, and blocks its dependents', () => {
    const d = desired({
      packages: [{ ...pkg('zip', 'No Such App'), positions: { 'spec.catalog.app': { file: 'x.yaml', line: 7, column: 10 } } }],
      flows: [flow('zip', { package: 'zip' })],
      tenantUploads: [upload('u', 'nowhere.example', 'zip')],
    });
    const p = run(d, live());
    const byKey = new Map(p.objects.map((o) => [o.key, o]));
    expect(byKey.get('Package/zip')).toMatchObject({ change: 'error', error: { code: 'REF_UNKNOWN' }, source: { line: 7, column: 10 } });
    expect(byKey.get('Flow/zip')).toMatchObject({ change: 'skipped', reasons: ['not planned: Package/zip has an error'] });
    expect(byKey.get('TenantUpload/u')).toMatchObject({ change: 'error', error: { code: 'REF_UNKNOWN' } });
    expect(p.actions).toEqual([]);
  });
});
