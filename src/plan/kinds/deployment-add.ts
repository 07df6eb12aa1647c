/**
 * Adding a deployment to a flow: add-deployment (started at once when git says running), then one
 * guarded skip-wave per wave up to a manual `wave` gate.
 */
import type { DeploymentManifest, DeploymentState } from '../../manifests/model.js';
import type { PlanContext } from '../context.js';
import type { InventoryEntry } from '../../state/inventory-types.js';
import { OP } from '../ops.js';
import { addBreakGlass, windowsRecord } from '../windows/window-gate.js';

/** Where a new deployment goes: after `deps`, into the flow and of the package named (live ids or keys planned here). */
export interface AddTarget {
  deps: string[];
  record: DeploymentRecord;
  flowRef: { id: string } | { key: string };
  packageRef: { id: string } | { key: string };
}

export function addActions(ctx: PlanContext, key: string, m: DeploymentManifest, state: DeploymentState, target: AddTarget): string[] {
  const { deps, record, flowRef, packageRef } = target;
  const description = `add deployment of ${m.spec.package} to flow ${m.spec.flow}${state === 'running' ? ' and start it' : ''}`;
  const startNow = state === 'running';
  // The windows in force go into the state for `promote` (docs/policy.md).
  const rec = { ...record, ...windowsRecord(ctx, m) };
  const add = ctx.action(
    key,
    m.spec.version !== undefined
      ? { op: OP.addDeployment, dependsOn: deps, description, flowRef, packageRef, version: m.spec.version, startNow, record: rec }
      : { op: OP.addDeployment, dependsOn: deps, description, flowRef, packageRef, startNow, record: rec },
  );
  const actions = [add];
  if (state === 'running' && m.spec.wave !== undefined) {
    let prev = add;
    for (let w = 1; w < m.spec.wave; w++) {
      prev = ctx.action(key, {
        op: OP.skipWave,
        dependsOn: [prev],
        description: `skip wave ${w} → ${w + 1}`,
        deploymentRef: { key },
        untilWave: w + 1,
      });
      actions.push(prev);
    }
  }
  if (startNow) addBreakGlass(ctx, key, m, actions);
  // These arrays live as long as the plan and a pushed-to array keeps spare room: keep an exact copy.
  return actions.length > 1 ? actions.slice() : actions;
}

export type DeploymentRecord = {
  specHash: string;
  spec: unknown;
  appliedState: string;
  contentRevision?: number;
  annotations?: Record<string, string>;
  windows?: InventoryEntry['windows'];
};

/** The ids that are not null, in an array of exactly that length (a filter() result keeps spare room). */
export function present(a: string | null, b: string | null): string[] {
  if (a === null) return b === null ? [] : [b];
  return b === null ? [a] : [a, b];
}
