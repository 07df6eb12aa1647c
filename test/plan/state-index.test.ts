/**
 * The plan's state indexes built while a pass's reads are in flight (`preparePlan`, plan/state-index.ts):
 * a plan given them is the plan made without them, and indexes of another inventory or desired set
 * are never used (docs/architecture.md, "The engine").
 */
import { describe, expect, it } from 'vitest';
import { plan, preparePlan } from '../../src/plan/planner.js';
import { identityHash } from '../../src/plan/kinds/plan-deployments.js';
import type { PlanInput } from '../../src/plan/planner.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import type { Inventory } from '../../src/state/inventory-types.js';
import {
  D1,
  F1,
  NOW,
  P1,
  convergedZip,
  dep,
  desired,
  emptyInventory,
  flow,
  live,
  liveDeployment,
  liveFlow,
  livePackage,
  pkg,
} from './fixtures.js';

function liveZip(): ReturnType<typeof live> {
  const d = liveDeployment(D1, F1, P1);
  return live({
    packages: [livePackage(P1)],
    flows: [{ ...liveFlow(F1, 'zip', [d]), details: liveFlow(F1, 'zip', [d]) }],
    deployments: [d],
  });
}

/** A state holding the zip flow under two keys (one superseded), and a rename git made of it. */
function renamedCase(): { input: PlanInput; inventory: Inventory } {
  const inventory = convergedZip({ state: 'running' });
  inventory.objects[`Flow/zip#${F1}`] = { ...inventory.objects['Flow/zip']!, name: `zip#${F1}`, superseded: { at: 'x' } };
  const d = desired({
    packages: [pkg('zip')],
    flows: [flow('zip-renamed', { app: '7-Zip', name: 'zip' })],
    deployments: [dep('zip', 'zip-renamed', 'zip')],
  });
  const input: PlanInput = {
    desired: d,
    live: liveZip(),
    inventory,
    options: { ...DEFAULT_PLAN_OPTIONS, prune: true },
    now: NOW,
    revision: 'r1',
  };
  return { input, inventory };
}

describe('plan: state indexes built while the reads are in flight', () => {
  it('a plan given them is the plan made without them', async () => {
    const { input } = renamedCase();
    const without = plan(input);
    const prepared = await preparePlan(input.desired, input.inventory);
    expect(plan({ ...input, prepared })).toEqual(without);
    expect(without.objects.find((o) => o.key === 'Flow/zip-renamed')?.movedFrom).toBe('Flow/zip');
  });

  it('indexes of another inventory are not used: the plan is of the inventory it is given', async () => {
    const { input } = renamedCase();
    // Indexes made of an empty state (a pass whose state changed after them): trusting them, the
    // plan would find the zip flow unowned and stop on a conflict instead of moving it.
    const prepared = await preparePlan(input.desired, emptyInventory());
    const without = plan(input);
    expect(plan({ ...input, prepared })).toEqual(without);
    expect(without.objects.find((o) => o.key === 'Flow/zip-renamed')?.movedFrom).toBe('Flow/zip');
  });

  it('indexes of another desired set are not used: which key git still describes decides the owner', async () => {
    const { input } = renamedCase();
    // Made for a desired set that still had Flow/zip: then no rename is inferred from it.
    const prepared = await preparePlan(desired({ packages: [pkg('zip')], flows: [flow('zip')] }), input.inventory);
    const without = plan(input);
    expect(plan({ ...input, prepared })).toEqual(without);
    expect(without.objects.find((o) => o.key === 'Flow/zip-renamed')?.movedFrom).toBe('Flow/zip');
  });

  it("the deployments' identity hashes made while reading are those the plan records, and used only for the desired set they were made of", async () => {
    // A first apply: the deployment is added, and its record carries the hash.
    const input: PlanInput = {
      desired: desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip')] }),
      live: live({}),
      inventory: emptyInventory(),
      options: DEFAULT_PLAN_OPTIONS,
      now: NOW,
      revision: 'r1',
    };
    const prepared = await preparePlan(input.desired, input.inventory);
    const [m] = input.desired.deployments;
    expect(prepared.identityHashes.get(m!)).toBe(
      identityHash({ flow: m!.spec.flow, package: m!.spec.package, version: m!.spec.version ?? null }),
    );
    // A hash the plan did not make shows which one it recorded.
    const marked = { ...prepared, identityHashes: new Map([[m!, 'prepared']]) };
    const recorded = (p: ReturnType<typeof plan>): unknown[] =>
      p.actions.flatMap((a) => ('record' in a && a.key === 'Deployment/zip' ? [(a.record as { specHash?: string }).specHash] : []));
    expect(recorded(plan(input))).toEqual([prepared.identityHashes.get(m!)]);
    expect(recorded(plan({ ...input, prepared: marked }))).toEqual(['prepared']);
    // The same manifests in another desired set object (a pass that loaded again): not used.
    const other = { ...input, desired: { ...input.desired } };
    expect(recorded(plan({ ...other, prepared: marked }))).not.toContain('prepared');
    expect(recorded(plan({ ...other, prepared: marked }))).toEqual(recorded(plan(input)));
  });
});
