/**
 * Which catalog version a package's `update` policy takes (docs/manifests.md, "Version policy"), pure.
 * Versions are ordered by util/version-order.ts (not semver).
 */
import type { UpdatePolicy } from '../manifests/model.js';
import { compareVersions, onTrack } from '../util/version-order.js';

export { compareVersions, onTrack };

export interface CatalogVersion {
  version: string;
  /** Release time, ms. */
  releasedMs: number;
}

export interface Choice {
  /** The version to take, or null when the current one is the newest the policy allows. */
  next: CatalogVersion | null;
  /** Why nothing matched the track at all (the versions there are), for a clear error. */
  noneOnTrack?: string[];
  /** `skip` entries that are no version of the app. */
  unknownSkips: string[];
}

/** The newest version on the track, not skipped, old enough at `nowMs`, and newer than `current`: never a downgrade. */
export function chooseVersion(
  current: string,
  versions: readonly CatalogVersion[],
  policy: UpdatePolicy,
  o: { nowMs: number; minAgeMs: number },
): Choice {
  const known = new Set(versions.map((v) => v.version));
  const unknownSkips = (policy.skip ?? []).filter((s) => !known.has(s));
  const tracked = versions.filter((v) => onTrack(v.version, policy.track));
  if (tracked.length === 0) return { next: null, noneOnTrack: versions.map((v) => v.version), unknownSkips };
  const skip = new Set(policy.skip ?? []);
  const candidates = tracked
    .filter((v) => !skip.has(v.version) && o.nowMs - v.releasedMs >= o.minAgeMs && compareVersions(v.version, current) > 0)
    .sort((a, b) => compareVersions(b.version, a.version));
  return { next: candidates[0] ?? null, unknownSkips };
}
