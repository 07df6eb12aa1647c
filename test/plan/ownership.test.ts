/**
 * One live object belongs to one key (docs/reconcile.md), in the pure planner: a key never adopts or
 * creates over a live object another state key records, and prune never deletes a live id that a
 * key git still describes records. The cases the CLI tests (test/e2e/ownership.test.ts) cannot
 * reach through valid manifests: deployments and uploads another key owns, superseded holders,
 * and states that already hold two keys on one id.
 */
import { describe, expect, it } from 'vitest';
import type { Inventory, InventoryEntry } from '../../src/state/inventory-types.js';
import type { Plan } from '../../src/plan/types.js';
import {
  D1,
  F1,
  P1,
  TENANT,
  convergedZip,
  dep,
  desired,
  flow,
  live,
  liveDeployment,
  liveFlow,
  livePackage,
  ops,
  pkg,
  run,
  upload,
} from './fixtures.js';

const P2 = 'aaaaaaaa-0000-4000-8000-000000000002';

/** The live account a converged zip package, flow and deployment leave (P1, F1, D1). */
function liveZip(extra: Parameters<typeof live>[0] = {}): ReturnType<typeof live> {
  const d = liveDeployment(D1, F1, P1);
  return live({
    packages: [livePackage(P1)],
    flows: [{ ...liveFlow(F1, 'zip', [d]), details: liveFlow(F1, 'zip', [d]) }],
    deployments: [d],
    ...extra,
  });
}

const zipDesired = (more: Partial<Parameters<typeof desired>[0]> = {}): ReturnType<typeof desired> =>
  desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip')], ...more });

/** `inv` with `from`'s entry recorded under `to` as well (a state written before two keys on one id were refused). */
function alsoUnder(inv: Inventory, from: string, to: string, extra: Partial<InventoryEntry> = {}): Inventory {
  const e = inv.objects[from];
  if (!e) throw new Error(`no ${from}`);
  inv.objects[to] = { ...e, name: to.slice(to.indexOf('/') + 1), updatedAt: 'y', ...extra };
  return inv;
}

const objectOf = (p: Plan, key: string): Plan['objects'][number] | undefined => p.objects.find((o) => o.key === key);
const writesOf = (p: Plan, key: string): string[] => ops(p).filter((o) => o.startsWith(`${key}:`));

describe('ownership: a live object another key owns', () => {
  it('a second Deployment of the live deployment Deployment/zip owns is OWNED_BY_ANOTHER_KEY, with or without --adopt', () => {
    const d = zipDesired({ deployments: [dep('zip', 'zip', 'zip'), dep('zip-again', 'zip', 'zip')] });
    for (const adopt of [false, true]) {
      const p = run(d, liveZip(), convergedZip({ state: 'running' }), { adopt });
      const o = objectOf(p, 'Deployment/zip-again');
      expect(o?.change).toBe('error');
      expect(o?.error?.code).toBe('OWNED_BY_ANOTHER_KEY');
      expect(o?.error?.message).toMatch(/already owned by Deployment\/zip, which is still in git/);
      expect(writesOf(p, 'Deployment/zip-again')).toEqual([]);
      expect(p.errors.join('\n')).toMatch(/another key in packsync's state owns/);
    }
  });

  it('an upload task TenantUpload/up owns is never adopted by a second TenantUpload of the same package and tenant (named another way)', () => {
    const inv = convergedZip({ state: 'running' });
    const task = {
      id: 'task-1',
      created: 'x',
      startedAt: 'x',
      completedAt: 'x',
      supportsProgress: true,
      progress: 100,
      state: 'Completed' as const,
      tenantId: TENANT.id,
      packageId: P1,
      errorDetails: null,
    };
    inv.objects['TenantUpload/up'] = {
      kind: 'TenantUpload',
      name: 'up',
      id: 'task-1',
      specHash: 'h',
      spec: {},
      revision: 'r0',
      tenantId: TENANT.id,
      packageId: P1,
      updatedAt: 'x',
    };
    const uploads = [upload('up', 'contoso.onmicrosoft.com', 'zip'), upload('up-again', 'Contoso', 'zip')];
    const p = run(zipDesired({ tenantUploads: uploads }), liveZip({ uploads: { [TENANT.id]: [task] } }), inv, { adopt: true });
    // Both manifests are in git and name one tenant two ways: the second is the error, naming the first (SAME_LIVE_IDENTITY).
    expect(objectOf(p, 'TenantUpload/up-again')?.error?.code).toBe('SAME_LIVE_IDENTITY');
    expect(objectOf(p, 'TenantUpload/up-again')?.error?.message).toMatch(/TenantUpload\/up-again and TenantUpload\/up both describe/);
    expect(writesOf(p, 'TenantUpload/up-again')).toEqual([]);
  });

  it('a live package kept as superseded by Package/zip is named as such (never "not owned"), with the `state rm` that releases it', () => {
    // Package/zip moved on to 24.07 (P2) and kept 24.08 (P1) for a revert; a new key asks for 24.08.
    const inv = convergedZip({ state: 'running' }, null);
    const kept = inv.objects['Package/zip'];
    if (!kept) throw new Error('no Package/zip');
    inv.objects[`Package/zip#${P1}`] = { ...kept, name: `zip#${P1}`, superseded: { at: 'x' } };
    const newer = run(desired({ packages: [pkg('zip', '7-Zip', '24.07')] }), live()).actions.find((a) => a.op === 'import-package');
    if (newer?.op !== 'import-package') throw new Error('expected an import');
    inv.objects['Package/zip'] = { ...kept, id: P2, specHash: newer.record.specHash, spec: newer.record.spec };
    const l = live({ packages: [livePackage(P1), livePackage(P2, { productVersion: '24.07' })] });
    const p = run(desired({ packages: [pkg('zip', '7-Zip', '24.07'), pkg('old')] }), l, inv, { adopt: true });
    const o = objectOf(p, 'Package/old');
    expect(o?.error?.code).toBe('OWNED_BY_ANOTHER_KEY');
    expect(o?.error?.message).toMatch(new RegExp(`kept in packsync's state by Package/zip#${P1}.*packsync state rm Package/zip#${P1}`));
    expect(o?.error?.message).not.toMatch(/not owned/);
    expect(writesOf(p, 'Package/old')).toEqual([]);
  });

  it('a package kept as superseded by a key that left git names `packsync state mv` (a rename the plan could not detect), never only `state rm`', () => {
    // As above, but Package/zip is gone from git: Package/old may be it renamed, and state mv carries the kept entry.
    const inv = convergedZip({ state: 'running' }, null);
    const kept = inv.objects['Package/zip'];
    if (!kept) throw new Error('no Package/zip');
    inv.objects[`Package/zip#${P1}`] = { ...kept, name: `zip#${P1}`, superseded: { at: 'x' } };
    inv.objects['Package/zip'] = { ...kept, id: P2, specHash: 'other' };
    const l = live({ packages: [livePackage(P1), livePackage(P2, { productVersion: '24.07' })] });
    const p = run(desired({ packages: [pkg('old')] }), l, inv);
    const o = objectOf(p, 'Package/old');
    expect(o?.error?.code).toBe('OWNED_BY_ANOTHER_KEY');
    expect(o?.error?.message).toContain('packsync state mv Package/zip Package/old');
    expect(writesOf(p, 'Package/old')).toEqual([]);
  });
});

describe('ownership: states that already hold two keys on one live id', () => {
  it('two keys git still describes on one live flow: STATE_SHARED_ID on both, the recorded-last key named for `state rm`, nothing planned', () => {
    const inv = alsoUnder(convergedZip({ state: 'running' }), 'Flow/zip', 'Flow/zip2');
    const d = zipDesired({ flows: [flow('zip'), flow('zip2', { app: '7-Zip', name: 'zip' })] });
    const p = run(d, liveZip(), inv, { prune: true, allowReplace: true });
    expect(['Flow/zip', 'Flow/zip2'].map((k) => objectOf(p, k)?.error?.code)).toEqual(['STATE_SHARED_ID', 'STATE_SHARED_ID']);
    expect(objectOf(p, 'Flow/zip')?.error?.message).toMatch(/under Flow\/zip and Flow\/zip2.*`packsync state rm Flow\/zip2`/);
    expect(objectOf(p, 'Deployment/zip')?.change).toBe('skipped');
    expect(p.actions).toEqual([]);
    expect(p.errors.join('\n')).toMatch(/packsync state rm KEY/);
  });

  it('--prune of a key that shares its live deployment with a key git describes forgets it and deletes nothing', () => {
    const inv = alsoUnder(convergedZip({ state: 'running' }), 'Deployment/zip', 'Deployment/zip-old');
    const p = run(zipDesired(), liveZip(), inv, { prune: true });
    expect(objectOf(p, 'Deployment/zip-old')?.change).toBe('forget');
    expect(objectOf(p, 'Deployment/zip-old')?.reasons.join(' ')).toMatch(/also recorded under Deployment\/zip.*nothing is deleted/);
    expect(p.actions.filter((a) => a.op === 'delete-deployment' || a.op === 'delete-flow')).toEqual([]);
    // Without --prune it is listed with the same reason and the `state rm` that fixes it.
    const listed = run(zipDesired(), liveZip(), inv);
    expect(objectOf(listed, 'Deployment/zip-old')?.change).toBe('orphan');
    expect(objectOf(listed, 'Deployment/zip-old')?.reasons.join(' ')).toMatch(/packsync state rm Deployment\/zip-old/);
  });

  it('--prune of two keys git left that share one live flow deletes it once and forgets the other', () => {
    const inv = alsoUnder(convergedZip({ state: 'running' }), 'Flow/zip', 'Flow/zip2');
    const p = run(desired({ packages: [pkg('zip')] }), liveZip(), inv, { prune: true });
    expect(p.actions.filter((a) => a.op === 'delete-flow').map((a) => a.key)).toEqual(['Flow/zip']);
    expect(objectOf(p, 'Flow/zip2')?.change).toBe('forget');
    expect(ops(p)).toContain('Deployment/zip:delete-deployment');
  });

  it('a rename still moves when the old key shares its id with another key git left: the move, and the other forgotten under --prune', () => {
    const inv = alsoUnder(convergedZip({ state: 'running' }), 'Flow/zip', 'Flow/zip-older');
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip-renamed', { app: '7-Zip', name: 'zip' })],
      deployments: [dep('zip', 'zip-renamed', 'zip')],
    });
    const p = run(d, liveZip(), inv, { prune: true });
    const moved = objectOf(p, 'Flow/zip-renamed');
    expect(moved?.movedFrom).toMatch(/^Flow\/zip(-older)?$/);
    expect(p.actions.filter((a) => a.op === 'delete-flow' || a.op === 'delete-deployment')).toEqual([]);
    const other = moved?.movedFrom === 'Flow/zip' ? 'Flow/zip-older' : 'Flow/zip';
    expect(objectOf(p, other)?.change).toBe('forget');
    expect(p.actions.find((a) => a.op === 'record' && a.key === 'Flow/zip-renamed')).toMatchObject({ entry: { id: F1 } });
  });
});
