/**
 * Plan-time checks of a Deployment's wave gate (`spec.wave`) against the live flow. A gate beyond
 * the flow's last wave can never be reached as written (the gate silently stopped at the last wave
 * before), so it is a plan error; a live wave already past the gate is said, not changed: packsync
 * never moves a deployment back.
 */
import type { V1DeploymentViewModel } from '../../api/wire/index.js';
import type { DeploymentManifest } from '../../manifests/model.js';
import type { PlanContext } from '../context.js';
import type { ErrorCode } from '../../util/errors.js';

/**
 * How many waves the live flow has: from its details, else from a live deployment of it. Undefined
 * when not known: a flow this pass creates (from a patch group its waves are the group's, which the
 * API does not list) or a flow whose details were not read.
 */
export function liveWaveCount(ctx: PlanContext, flowId: string | undefined, live: V1DeploymentViewModel | undefined): number | undefined {
  const details = flowId ? ctx.flowsById.get(flowId)?.details : undefined;
  if (details && details.waves.length > 0) return details.waves.length;
  if (live && live.waveCount > 0) return live.waveCount;
  const other = details?.deployments.find((d) => d.waveCount > 0);
  return other?.waveCount;
}

/** The plan error of a gate beyond the flow's last wave, or undefined when the gate is fine or unknown. */
export function waveGateError(
  ctx: PlanContext,
  m: DeploymentManifest,
  flowId: string | undefined,
  live: V1DeploymentViewModel | undefined,
): { code: ErrorCode; message: string } | undefined {
  const gate = m.spec.wave;
  if (gate === undefined) return undefined;
  const count = liveWaveCount(ctx, flowId, live);
  if (count === undefined || gate <= count) return undefined;
  return {
    code: 'WAVE_OUT_OF_RANGE',
    message: `wave ${gate} is beyond the last wave of flow "${m.spec.flow}", which has ${count} wave${count === 1 ? '' : 's'}; use a wave from 1 to ${count}`,
  };
}

/** A reason line (not a change) when the live deployment is already past the gate. */
export function pastGateReason(gate: number | undefined, live: Pick<V1DeploymentViewModel, 'currentWave'>): string | undefined {
  return gate !== undefined && live.currentWave > gate ? `live wave ${live.currentWave} is past the gate wave ${gate}` : undefined;
}
