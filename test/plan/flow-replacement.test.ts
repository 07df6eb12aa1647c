/**
 * Flow replacement as the planner sees it after every point an apply can stop at (docs/reconcile.md): the
 * old flow is recorded as being replaced, and any later plan finishes the replacement (deployments
 * onto the new flow, the old flow deleted last) instead of keeping the old flow for a revert.
 */
import { describe, expect, it } from 'vitest';
import type { Inventory, InventoryEntry } from '../../src/state/inventory-types.js';
import type { PlanAction } from '../../src/plan/types.js';
import { formatPlanText } from '../../src/plan/render/format.js';
import { D1, F1, P1, convergedZip, dep, desired, flow, live, liveDeployment, liveFlow, livePackage, ops, pkg, run } from './fixtures.js';

const F2 = 'bbbbbbbb-0000-4000-8000-000000000002';
const D0 = 'cccccccc-0000-4000-8000-000000000000';
const D2 = 'cccccccc-0000-4000-8000-000000000002';

/** git after the edit: the flow gains a flag, which the API can only do by a new flow. */
const changed = desired({
  packages: [pkg('zip')],
  flows: [flow('zip', { app: '7-Zip', flags: ['radarTracking'] })],
  deployments: [dep('zip', 'zip', 'zip')],
});
const unchanged = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip')] });

/** The live account: F1 with D1 (and `extra` deployments), and F2 (with `onF2`) when given. */
function account(opts: { f1?: boolean; f2?: boolean; onF1?: string[]; onF2?: string[] } = {}) {
  const { f1 = true, f2 = false, onF1 = [D1], onF2 = [] } = opts;
  const d1 = onF1.map((id, i) => liveDeployment(id, F1, P1, { currentWave: 2 + i }));
  const d2 = onF2.map((id) => liveDeployment(id, F2, P1));
  const flows = [
    ...(f1 ? [{ ...liveFlow(F1, 'zip', d1), details: liveFlow(F1, 'zip', d1) }] : []),
    ...(f2 ? [{ ...liveFlow(F2, 'zip', d2), created: '2026-11-02T00:00:00+00:00', details: liveFlow(F2, 'zip', d2) }] : []),
  ];
  return live({ packages: [livePackage(P1)], flows, deployments: [...(f1 ? d1 : []), ...d2] });
}

/** The state an apply of the replacement leaves when it stops after `step`. */
function stoppedAfter(step: 'record' | 'create' | 'created'): Inventory {
  const inv = convergedZip();
  const replaced = run(changed, account(), inv, { allowReplace: true });
  const keep = replaced.actions.find((a) => a.op === 'record' && a.key === `Flow/zip#${F1}`);
  if (keep?.op !== 'record') throw new Error('no record of the replacement');
  inv.objects[keep.key] = keep.entry;
  if (step === 'create') inv.intents['Flow/zip'] = { key: 'Flow/zip', op: 'create-flow', at: 'x', knownIds: [F1], match: { name: 'zip' } };
  if (step === 'created') {
    const create = replaced.actions.find((a) => a.op === 'create-flow');
    if (create?.op !== 'create-flow') throw new Error('no create');
    inv.objects['Flow/zip'] = { ...inv.objects['Flow/zip']!, id: F2, specHash: create.record.specHash, spec: create.record.spec };
  }
  return inv;
}

const byOp = (actions: PlanAction[], op: string): PlanAction[] => actions.filter((a) => a.op === op);

/** The flow's change window, closed at CLOSED_AT (a Saturday). */
const WINDOWS = { timezone: 'Europe/Oslo', allow: ['Mon 08:00-09:00'] };
const CLOSED_AT = '2026-11-28T12:00:00Z';
const windowed = desired({
  packages: [pkg('zip')],
  flows: [flow('zip', { app: '7-Zip', flags: ['radarTracking'], windows: WINDOWS })],
  deployments: [dep('zip', 'zip', 'zip')],
});

/** A replacement begun through the closed window (break glass) and killed after the new flow was recorded. */
function windowedStoppedAfterCreated(): Inventory {
  const inv = convergedZip();
  const glass = { ignoreWindows: { actor: 'Ada', reason: 'hotfix' }, allowReplace: true };
  const replaced = run(windowed, { ...account(), serviceTime: CLOSED_AT }, inv, glass);
  const keep = replaced.actions.find((a) => a.op === 'record' && a.key === `Flow/zip#${F1}`);
  const create = replaced.actions.find((a) => a.op === 'create-flow');
  if (keep?.op !== 'record' || create?.op !== 'create-flow') throw new Error('no replacement planned');
  inv.objects[keep.key] = keep.entry;
  inv.objects['Flow/zip'] = { ...inv.objects['Flow/zip']!, id: F2, specHash: create.record.specHash, spec: create.record.spec };
  return inv;
}

describe('flow replacement in progress', () => {
  it('records the old flow as being replaced, not as a superseded version kept for a revert', () => {
    const p = run(changed, account(), convergedZip(), { allowReplace: true });
    const keep = p.actions.find((a) => a.key === `Flow/zip#${F1}` && a.op === 'record');
    expect(keep?.op === 'record' && keep.entry.replacing).toBeDefined();
    expect(keep?.op === 'record' && keep.entry.superseded).toBeUndefined();
    expect(ops(p)[0]).toBe(`Flow/zip#${F1}:record`);
    expect(ops(p)[1]).toBe('Flow/zip:create-flow');
  });

  it('killed after the create was sent: adopts the new flow, adds the deployment to it, deletes the old flow, creates nothing', () => {
    const p = run(changed, account({ f2: true }), stoppedAfter('create'), { allowReplace: true });
    expect(ops(p)).toEqual(['Flow/zip:record', `Flow/zip#${F1}:delete-flow`, 'Deployment/zip:add-deployment']);
    const [adopt] = byOp(p.actions, 'record');
    const [add] = byOp(p.actions, 'add-deployment');
    const [del] = byOp(p.actions, 'delete-flow');
    expect(adopt?.op === 'record' && adopt.resolvesIntent && adopt.entry.id).toBe(F2);
    expect(add?.op === 'add-deployment' && add.flowRef).toEqual({ id: F2 });
    expect(del?.op === 'delete-flow' && del.flowId).toBe(F1);
    expect(del?.dependsOn).toEqual([adopt!.id, add!.id]);
    // The destroyed deployment's entry is forgotten with the flow it lived on.
    expect(del?.op === 'delete-flow' && del.forget).toEqual([{ key: 'Deployment/zip', id: D1 }]);
    const flowObject = p.objects.find((o) => o.key === 'Flow/zip');
    expect(flowObject?.change).toBe('replace');
    expect(flowObject?.destroys?.map((d) => d.key)).toEqual(['Deployment/zip']);
    expect(p.objects.find((o) => o.key === `Flow/zip#${F1}`)).toBeUndefined(); // not an orphan "kept for a revert"
    expect(p.summary).toMatchObject({ create: 1, change: 1, delete: 1, blocked: 0 });
  });

  it('killed after the new flow was recorded: adds the deployment to it and deletes the old flow', () => {
    const p = run(changed, account({ f2: true }), stoppedAfter('created'), { allowReplace: true });
    expect(ops(p)).toEqual([`Flow/zip#${F1}:delete-flow`, 'Deployment/zip:add-deployment']);
    expect(p.summary).toMatchObject({ create: 1, change: 1, delete: 1 });
  });

  it('killed after the deployment was added to the new flow: only the old flow is deleted', () => {
    const inv = stoppedAfter('created');
    inv.objects['Deployment/zip'] = { ...inv.objects['Deployment/zip']!, id: D2, flowId: F2 };
    const p = run(changed, account({ f2: true, onF2: [D2] }), inv, { allowReplace: true });
    expect(ops(p)).toEqual([`Flow/zip#${F1}:delete-flow`]);
    const [del] = byOp(p.actions, 'delete-flow');
    expect(del?.dependsOn).toEqual([]);
  });

  it("finish-replacement-window-held: a replacement to finish waits while the closed window holds its deployment's add; the old flow keeps its rollout", () => {
    const p = run(windowed, { ...account({ f2: true }), serviceTime: CLOSED_AT }, windowedStoppedAfterCreated(), { allowReplace: true });
    expect(ops(p)).toEqual([]);
    expect(p.objects.find((o) => o.key === 'Flow/zip')?.change).toBe('waiting');
    expect(p.objects.find((o) => o.key === 'Deployment/zip')?.change).toBe('waiting');
  });

  it("finish-replacement-window-not-held: once its deployment is on the new flow, only the old flow's delete is left and a closed window does not hold it (regression: held, both flows kept)", () => {
    const inv = windowedStoppedAfterCreated();
    inv.objects['Deployment/zip'] = { ...inv.objects['Deployment/zip']!, id: D2, flowId: F2 };
    const p = run(windowed, { ...account({ f2: true, onF2: [D2] }), serviceTime: CLOSED_AT }, inv, { allowReplace: true });
    // (The deployment's entry also records its windows, for `promote`.)
    expect(ops(p).filter((o) => !o.endsWith(':record'))).toEqual([`Flow/zip#${F1}:delete-flow`]);
    expect(p.objects.find((o) => o.key === 'Flow/zip')?.change).not.toBe('waiting');
    expect(p.windows?.filter((w) => (w.held?.length ?? 0) > 0)).toEqual([]);
  });

  it('killed after the old flow was deleted: its entry and the deployment entries on it are forgotten, no API call', () => {
    const inv = stoppedAfter('created');
    inv.objects['Deployment/zip'] = { ...inv.objects['Deployment/zip']!, id: D2, flowId: F2 };
    inv.objects[`Deployment/zip#${D0}`] = {
      ...inv.objects['Deployment/zip'],
      name: `zip#${D0}`,
      id: D0,
      flowId: F1,
      superseded: { at: 'x' },
    };
    const p = run(changed, account({ f1: false, f2: true, onF2: [D2] }), inv, { allowReplace: true });
    expect(ops(p).sort()).toEqual([`Deployment/zip#${D0}:forget`, `Flow/zip#${F1}:forget`]);
    // No --allow-replace needed for state-only bookkeeping.
    expect(ops(run(changed, account({ f1: false, f2: true, onF2: [D2] }), inv)).sort()).toEqual(ops(p).sort());
  });

  it('without --allow-replace: requires it, writes nothing and holds the flow back from its deployments', () => {
    const p = run(changed, account({ f2: true }), stoppedAfter('create'));
    expect(p.actions).toEqual([]);
    const o = p.objects.find((x) => x.key === 'Flow/zip');
    expect(o?.change).toBe('requires-replacement');
    expect(o?.reasons.join(' ')).toMatch(/interrupted.*--allow-replace/);
    expect(p.objects.find((x) => x.key === 'Deployment/zip')?.change).toBe('skipped');
    expect(p.summary.blocked).toBeGreaterThan(0);
    // Once recorded, the same: no add to the new flow while the old one is kept.
    expect(run(changed, account({ f2: true }), stoppedAfter('created')).actions).toEqual([]);
  });

  it('stopped before the create: the replacement is planned again (one create), or dropped when git went back', () => {
    const inv = stoppedAfter('record');
    const again = run(changed, account(), inv, { allowReplace: true });
    expect(byOp(again.actions, 'create-flow')).toHaveLength(1);
    expect(byOp(again.actions, 'delete-flow').map((a) => a.op === 'delete-flow' && a.flowId)).toEqual([F1]);
    const reverted = run(unchanged, account(), inv, { allowReplace: true });
    expect(ops(reverted)).toEqual([`Flow/zip#${F1}:forget`]);
  });

  it('names a superseded deployment a replacement destroys by its state key, and forgets it with the flow', () => {
    const inv = convergedZip();
    const old: InventoryEntry = { ...inv.objects['Deployment/zip']!, name: `zip#${D0}`, id: D0, superseded: { at: 'x' } };
    inv.objects[`Deployment/zip#${D0}`] = old;
    const p = run(changed, account({ onF1: [D1, D0] }), inv, { allowReplace: true });
    const o = p.objects.find((x) => x.key === 'Flow/zip');
    expect(o?.destroys?.map((d) => d.key).sort()).toEqual(['Deployment/zip', `Deployment/zip#${D0}`]);
    expect(formatPlanText(p)).not.toMatch(/unmanaged deployment/);
    const [del] = byOp(p.actions, 'delete-flow');
    expect(del?.op === 'delete-flow' && del.forget?.map((f) => f.key).sort()).toEqual(['Deployment/zip', `Deployment/zip#${D0}`]);
    // Not listed as an orphan kept for a revert: the replacement decides its fate.
    expect(p.objects.find((x) => x.key === `Deployment/zip#${D0}`)).toBeUndefined();
    expect(p.summary).toMatchObject({ create: 1, change: 1, delete: 2 });
  });
});

describe('deployment replacement', () => {
  it('counts the deleted deployment under to delete and the added one under to create', () => {
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { version: '24.08.1' })] });
    const p = run(d, account(), convergedZip(), { allowReplace: true });
    expect(ops(p)).toEqual(['Deployment/zip:delete-deployment', 'Deployment/zip:add-deployment']);
    expect(p.summary).toMatchObject({ create: 1, change: 0, delete: 1 });
    expect(p.objects.find((o) => o.key === 'Deployment/zip')?.destroys).toEqual([
      { key: 'Deployment/zip', id: D1, status: 'Running', wave: '2/3' },
    ]);
  });
});
