/**
 * Managed devices per tenant, from the wave details of the flows a plan moves (docs/policy.md, blast
 * radius): one read per wave of those flows only, so a plan that moves nothing reads nothing more.
 * The service's wave details name each tenant's `deviceCount` (docs/api-model.md).
 */
import type { PacksyncApi } from '../api/operations.js';
import { mapLimit } from '../util/map-limit.js';
import { readsAtOnce } from './read-concurrency.js';
import type { LiveState } from './types.js';

export async function readTenantDevices(
  api: PacksyncApi,
  live: LiveState,
  flowIds: readonly string[],
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<{ devices: Map<string, number>; reads: number }> {
  const wanted = new Set(flowIds);
  // Flows made from one patch group share its waves' tenants: one read per distinct set of tenants.
  const bySet = new Map<string, { id: string }>();
  for (const f of live.flows) if (wanted.has(f.id)) for (const w of f.details?.waves ?? []) bySet.set(tenantSet(w.tenantIds), w);
  const waves = [...bySet.values()];
  const devices = new Map<string, number>();
  const details = await mapLimit(waves, readsAtOnce(api, opts.concurrency), (w) =>
    api.getWave(w.id, opts.signal ? { signal: opts.signal } : {}),
  );
  for (const d of details) for (const t of d.tenants) if (typeof t.deviceCount === 'number') devices.set(t.tenantId, t.deviceCount);
  return { devices, reads: waves.length };
}

/** A wave's tenants as one key; sorted only when they are not already (no copy for the usual case). */
function tenantSet(ids: readonly string[]): string {
  for (let i = 1; i < ids.length; i++) if (ids[i - 1]! > ids[i]!) return [...ids].sort().join(',');
  return ids.join(',');
}
