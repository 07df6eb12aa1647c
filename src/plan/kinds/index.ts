/**
 * The planning of each object kind, in one table (docs/architecture.md, "Manifest kinds"): the kind
 * registry (manifests/kinds/) says what a kind is; this says how the planner plans one manifest of
 * it and who depends on its objects. The mapped type makes the table exhaustive: a kind without a
 * planner does not compile, and no `else` branch treats it as another kind.
 */
import type { Manifest, ObjectKind } from '../../manifests/model.js';
import type { PlanContext } from '../context.js';
import type { Dependents } from '../not-planned.js';
import { planDeployment } from './plan-deployments.js';
import { planFlow } from './plan-flows.js';
import { planPackage } from './plan-packages.js';
import { planTenantUpload } from './plan-uploads.js';

export type ManifestOf<K extends ObjectKind> = Extract<Manifest, { kind: K }>;

export interface KindPlanner<K extends ObjectKind> {
  plan: (ctx: PlanContext, m: ManifestOf<K>) => void;
  /**
   * The references to this kind's objects and its live objects by id: when one of them is suspended
   * or shares a live id, what refers to it is planned against these. Kinds nothing refers to have none.
   */
  dependents?: (ctx: PlanContext) => Dependents;
}

export const KIND_PLANNERS: { readonly [K in ObjectKind]: KindPlanner<K> } = {
  Package: { plan: planPackage, dependents: (ctx) => ({ refs: ctx.packageRefs, live: ctx.packagesById }) },
  Flow: { plan: planFlow, dependents: (ctx) => ({ refs: ctx.flowRefs, live: ctx.flowsById }) },
  Deployment: { plan: planDeployment },
  TenantUpload: { plan: planTenantUpload },
};
