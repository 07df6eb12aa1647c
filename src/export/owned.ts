/**
 * What the inventory already owns, seen from the export: an owned live object is not written again
 * (exporting into the managed repository would otherwise duplicate it), but exported objects may
 * refer to it by the manifest name the inventory recorded.
 */
import type { Inventory } from '../state/inventory-types.js';
import type { Kind } from '../manifests/model.js';

export interface Owned {
  /** Manifest name of the owned object with this live id, per kind. */
  name: (kind: Kind, id: string) => string | undefined;
  /** True when packsync already uploads this package to this tenant. */
  upload: (tenantId: string, packageId: string, taskIds: readonly string[]) => boolean;
  /** Manifest names in use per kind: new names must not collide with them in the same repository. */
  names: (kind: Kind) => string[];
}

export function ownedBy(inventory: Inventory): Owned {
  const byId = new Map<string, string>();
  const uploads = new Set<string>();
  const names = new Map<Kind, string[]>();
  for (const e of Object.values(inventory.objects)) {
    byId.set(`${e.kind}|${e.id}`, e.name);
    if (e.kind === 'TenantUpload' && e.tenantId && e.packageId) uploads.add(`${e.tenantId}|${e.packageId}`);
    const list = names.get(e.kind);
    if (list) list.push(e.name);
    else names.set(e.kind, [e.name]);
  }
  return {
    name: (kind, id) => byId.get(`${kind}|${id}`),
    upload: (tenantId, packageId, taskIds) => uploads.has(`${tenantId}|${packageId}`) || taskIds.some((t) => byId.has(`TenantUpload|${t}`)),
    names: (kind) => names.get(kind) ?? [],
  };
}

export function slug(s: string): string {
  const out = s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 120);
  return out || 'unnamed';
}

/** Unique manifest names for one kind, never one of `taken`. */
export function uniqueNamer(taken: readonly string[] = []): (base: string) => string {
  const used = new Set<string>(taken);
  return (base) => {
    let name = slug(base);
    for (let i = 2; used.has(name); i++) name = `${slug(base)}-${i}`;
    used.add(name);
    return name;
  };
}
