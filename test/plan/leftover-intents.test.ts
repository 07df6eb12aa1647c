/**
 * Pending creates whose manifest left git (src/plan/kinds/leftover-intents.ts). Regression: a run
 * interrupted between a create and its record, then the change reverted, left the created flow and
 * package live, unowned and never listed (plan --prune said "No changes"), and the intents pending
 * for ever.
 */
import { describe, expect, it } from 'vitest';
import { APP_7ZIP, D1, F1, P1, desired, emptyInventory, flow, live, liveDeployment, liveFlow, livePackage, ops, run } from './fixtures.js';

const P2 = 'aaaaaaaa-0000-4000-8000-000000000002';

function interrupted(): ReturnType<typeof emptyInventory> {
  const inv = emptyInventory();
  inv.intents['Flow/pwsh'] = {
    key: 'Flow/pwsh',
    op: 'create-flow',
    at: 'x',
    knownIds: [],
    match: { name: 'PowerShell 7' },
    file: 'flows/pwsh.yaml',
  };
  inv.intents['Package/pwsh'] = {
    key: 'Package/pwsh',
    op: 'import-package',
    at: 'x',
    knownIds: [P2],
    match: { appId: APP_7ZIP.id, version: '24.08', scope: '1' },
    file: 'packages/pwsh.yaml',
  };
  return inv;
}

const made = (): ReturnType<typeof live> =>
  live({ flows: [liveFlow(F1, 'PowerShell 7')], packages: [livePackage(P2), livePackage(P1, { created: '2026-11-02T00:00:00+00:00' })] });

describe('a create interrupted, then its manifest removed', () => {
  it('leftover-intent-listed: what the interrupted creates made is listed as requiring pruning, the intents kept (no state write)', () => {
    const p = run(desired({}), made(), interrupted());
    expect(ops(p)).toEqual([]);
    const listed = Object.fromEntries(p.objects.map((o) => [o.key, [o.change, o.requiresPruning === true]]));
    expect(listed).toEqual({ 'Flow/pwsh': ['orphan', true], 'Package/pwsh': ['orphan', false] });
    // P2 was there before the import (knownIds): the import made P1.
    expect(p.objects.find((o) => o.key === 'Package/pwsh')!.reasons[0]).toContain(`package ${P1}`);
    expect(p.objects.find((o) => o.key === 'Flow/pwsh')!.reasons[0]).toContain(`flow ${F1}`);
  });

  it('leftover-intent-back-adopts: a manifest that comes back adopts the object as it is live, never a replacement', () => {
    // A record with no spec (the first version of this fix) made the next plan replace the flow and re-import the package.
    const p = run(desired({ flows: [flow('pwsh', { app: '7-Zip', name: 'PowerShell 7' })] }), made(), interrupted());
    const f = p.objects.find((o) => o.key === 'Flow/pwsh')!;
    expect(f.change).toBe('adopt');
    expect(ops(p)).toContain('Flow/pwsh:record');
    expect(ops(p)).not.toContain('Flow/pwsh:create-flow');
  });

  it('an add-deployment intent finds the deployment it added on its flow and package', () => {
    const inv = emptyInventory();
    inv.intents['Deployment/zip'] = {
      key: 'Deployment/zip',
      op: 'add-deployment',
      at: 'x',
      knownIds: [],
      match: { flowId: F1, packageId: P1 },
    };
    const l = live({ flows: [liveFlow(F1, 'Other')], deployments: [liveDeployment(D1, F1, P1)], packages: [livePackage(P1)] });
    const listed = run(desired({}), l, inv);
    expect(listed.objects.find((o) => o.key === 'Deployment/zip')).toMatchObject({ change: 'orphan', requiresPruning: true });
    expect(ops(run(desired({}), l, inv, { prune: true }))).toEqual(['Deployment/zip:delete-deployment', 'Deployment/zip:forget']);
  });

  it('upload-intent-pending-forever: an interrupted upload whose manifest left git is dropped, with or without --prune (regression: it stayed pending for ever)', () => {
    const inv = emptyInventory();
    inv.intents['TenantUpload/zip-contoso'] = {
      key: 'TenantUpload/zip-contoso',
      op: 'tenant-upload',
      at: 'x',
      knownIds: [],
      match: { tenantId: 'bbbbbbbb-0000-4000-8000-000000000001', packageId: P1 },
      file: 'uploads.yaml',
    };
    for (const prune of [false, true]) {
      const p = run(desired({}), live({ packages: [livePackage(P1)] }), inv, { prune });
      expect(ops(p)).toEqual(['TenantUpload/zip-contoso:forget']);
      expect(p.objects.find((o) => o.key === 'TenantUpload/zip-contoso')).toMatchObject({ change: 'forget' });
    }
  });

  it('with --prune the flow is deleted and the package forgotten (the API cannot delete packages); the intents go', () => {
    const p = run(desired({}), made(), interrupted(), { prune: true });
    expect(ops(p).sort()).toEqual(['Flow/pwsh:delete-flow', 'Flow/pwsh:forget', 'Package/pwsh:forget']);
    const del = p.actions.find((a) => a.op === 'delete-flow');
    expect(del?.op === 'delete-flow' && del.flowId).toBe(F1);
  });

  it('an intent that made nothing is dropped, and so is one whose match another key already records', () => {
    expect(ops(run(desired({}), live(), interrupted())).sort()).toEqual(['Flow/pwsh:forget', 'Package/pwsh:forget']);
    const owned = emptyInventory();
    owned.objects['Flow/other'] = { kind: 'Flow', name: 'other', id: F1, specHash: 'h', spec: {}, revision: 'r0', updatedAt: 'x' };
    owned.intents = interrupted().intents;
    // F1 is another key's: the create made nothing this plan can tell apart.
    expect(ops(run(desired({}), made(), owned))).toContain('Flow/pwsh:forget');
  });

  it('flow-renamed-after-interrupted-create: a flow whose manifest was renamed after an interrupted create adopts the flow it made, never a second one', () => {
    const inv = emptyInventory();
    inv.intents['Flow/zip'] = { key: 'Flow/zip', op: 'create-flow', at: 'x', knownIds: [], match: { name: 'Old name' } };
    const p = run(desired({ flows: [flow('zip')] }), live({ flows: [liveFlow(F1, 'Old name')] }), inv);
    expect(ops(p)).not.toContain('Flow/zip:create-flow');
    const rec = p.actions.find((a) => a.key === 'Flow/zip' && a.op === 'record');
    expect(rec?.op === 'record' && rec.resolvesIntent && rec.entry.id).toBe(F1);
  });
});
