/**
 * Patch groups by name, where the service can list them. The v1 API has no operation that lists
 * patch groups (docs/api-model.md), so a manifest that names one by name can only be resolved
 * against a service that offers the list another way: the packsync simulator's fixtures
 * (`GET /_sim/fixtures`, guarded by the same key). Anywhere else the answer is "no list" (null),
 * and the plan says to write the id (docs/manifests.md, Flow `patchGroup`).
 */
import { ApiError } from './errors.js';
import type { CallOptions, PatchGroupName } from './operations.js';
import type { HttpTransport } from './transport.js';

export async function readPatchGroups(http: HttpTransport, opts: CallOptions = {}): Promise<PatchGroupName[] | null> {
  let body: Buffer;
  try {
    const res = await http.request({
      operation: 'listPatchGroups',
      method: 'GET',
      path: '/_sim/fixtures',
      idempotent: true,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    body = res.body;
  } catch (e) {
    // A service without the list answers it as an unknown route.
    if (e instanceof ApiError && (e.code === 'API_NOT_FOUND' || e.status === 405)) return null;
    throw e;
  }
  return patchGroupsIn(body);
}

/** The fixtures' `patchGroups` as id and name; null when the answer holds no such list. */
function patchGroupsIn(body: Buffer): PatchGroupName[] | null {
  let data: unknown;
  try {
    data = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const groups = (data as { patchGroups?: unknown } | null)?.patchGroups;
  if (!Array.isArray(groups)) return null;
  return groups.flatMap((g: unknown) => {
    const { id, name } = (g ?? {}) as { id?: unknown; name?: unknown };
    return typeof id === 'string' && typeof name === 'string' ? [{ id: id.toLowerCase(), name }] : [];
  });
}
