/**
 * Deployments the service starts by itself (docs/reconcile.md, "Service-driven flows"): a flow with
 * `startNewVersionsAutomatically` imports each new catalog version and adds and starts a deployment for
 * it, stopping the running one or removing old ones (`supersedenceHistoryCount`). Those deployments are
 * the service's, not git's: listed under their flow, never pruned, never conflicts or orphans. A
 * deployment git declares that the service stopped or removed for a newer one is superseded by the
 * service, not drift: neither apply nor the agent starts or adds it again.
 */
import type { V1DeploymentViewModel } from '../../api/wire/index.js';
import { FLOW_FLAGS } from '../../api/wire/index.js';
import type { PlanContext } from '../context.js';
import type { ObjectPlan } from '../types.js';

const startsNewVersions = (ctx: PlanContext, flowId: string | undefined): boolean =>
  flowId !== undefined && ((ctx.flowsById.get(flowId)?.flags ?? 0) & FLOW_FLAGS.startNewVersionsAutomatically) !== 0;

const created = (d: V1DeploymentViewModel): number => Date.parse(d.created.replace(/(\.\d{3})\d+/, '$1'));

/**
 * Live deployments of the flow that no state key owns, of a package no state key owns either: the
 * ones the service started (it deploys the versions it imports itself), newest last. A deployment of
 * a package packsync owns was made by packsync, or by a person: forgotten (`state rm`) or made in the
 * console, it stays a conflict naming `--adopt` (regression: it was taken over as the service's).
 */
export function serviceStarted(ctx: PlanContext, flowId: string): V1DeploymentViewModel[] {
  if (!startsNewVersions(ctx, flowId)) return [];
  const ownedPackage = (id: string | null | undefined): boolean =>
    !!id && (ctx.holdersOf(id).length > 0 || ctx.holdersOf(id.toLowerCase()).length > 0);
  // The flow's own details list its deployments: no scan of every deployment of the account per flow.
  return (ctx.flowsById.get(flowId)?.details?.deployments ?? [])
    .filter((d) => ctx.holdersOf(d.id).length === 0 && !ownedPackage(d.packageId))
    .sort((a, b) => created(a) - created(b));
}

/**
 * The deployment the service started in place of one git declares, when the flow starts new versions
 * itself and started one after it (`since`: the git deployment's creation, when it is still live).
 */
export function serviceSuccessor(
  ctx: PlanContext,
  flowId: string | undefined,
  since?: V1DeploymentViewModel,
): V1DeploymentViewModel | undefined {
  if (flowId === undefined) return undefined;
  const started = serviceStarted(ctx, flowId).filter((d) => !since || created(d) > created(since));
  return started[started.length - 1];
}

export function supersededReason(successor: V1DeploymentViewModel, what: 'stopped' | 'removed'): string {
  return `superseded by the service: the flow started ${successor.version} (${successor.id}, ${successor.status}, wave ${successor.currentWave}/${successor.waveCount}) and ${what} this deployment; packsync does not ${what === 'stopped' ? 'start it again' : 'add it again'}`;
}

/**
 * A live package nobody owns that the service imported for an owned flow starting new versions by
 * itself (a service-started deployment of the flow deploys it): git's version bump of that app takes it
 * over instead of importing a second copy or calling it a conflict (docs/reconcile.md).
 */
export function importedByService<T extends { id: string }>(
  ctx: PlanContext,
  candidates: readonly T[],
): { pkg: T; reason: string } | undefined {
  for (const pkg of candidates) {
    if (ctx.holdersOf(pkg.id).length > 0) continue;
    const d = ctx.live.deployments.find(
      (x) =>
        x.packageId?.toLowerCase() === pkg.id.toLowerCase() &&
        ctx.holdersOf(x.flowId).length > 0 &&
        serviceStarted(ctx, x.flowId).some((s) => s.id === x.id),
    );
    if (!d) continue;
    const flow = ctx.holdersOf(d.flowId)[0] ?? d.flowId;
    return {
      pkg,
      reason: `imported by the service for ${flow} (it starts new versions itself): taking over live package ${pkg.id}, nothing is imported`,
    };
  }
  return undefined;
}

/** Lists the service's deployments under each owned flow that starts new versions itself. */
export function listServiceStarted(ctx: PlanContext, objects: readonly ObjectPlan[]): void {
  for (const o of objects) {
    if (o.kind !== 'Flow') continue;
    const id = ctx.entry(o.key)?.id;
    if (!id) continue;
    const started = serviceStarted(ctx, id);
    if (started.length === 0) continue;
    o.serviceStarted = started.map((d) => ({ id: d.id, version: d.version, status: d.status, wave: `${d.currentWave}/${d.waveCount}` }));
    for (const d of started) o.reasons.push(`started by the service: ${d.version} (${d.status}, wave ${d.currentWave}/${d.waveCount})`);
  }
}
