/**
 * Which catalog version a package's `update` policy takes (docs/manifests.md, "Version policy"), pure.
 * Versions compare by their dot-, dash- or underscore-separated parts: numbers as numbers, anything
 * else as text after numbers (`24.10` > `24.9`, `1.0` < `1.0.1`, `1.0-beta` < `1.0.1`). It is how the
 * catalog's versions are written (`24.08`, `7.4.6`, `131.0.6778.86`); it is not semver.
 */
import type { UpdatePolicy } from '../manifests/model.js';

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.\-_+]/);
  const pb = b.split(/[.\-_+]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x) ? Number(x) : NaN;
    const ny = /^\d+$/.test(y) ? Number(y) : NaN;
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) {
      if (nx !== ny) return nx < ny ? -1 : 1;
    } else if (Number.isNaN(nx) !== Number.isNaN(ny)) {
      return Number.isNaN(nx) ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/** True when `version` is on the track: `latest`, a prefix `24.x`, or comparators `>=24.0 <25`. */
export function onTrack(version: string, track = 'latest'): boolean {
  const t = track.trim();
  if (t === 'latest') return true;
  if (t.endsWith('.x')) return version.startsWith(t.slice(0, -1));
  const parts = t.match(/(>=|<=|>|<|=)\s*[^\s<>=]+/g) ?? [];
  return parts.every((c) => {
    const m = /^(>=|<=|>|<|=)\s*(.+)$/.exec(c);
    if (!m) return false;
    const cmp = compareVersions(version, m[2]!);
    return m[1] === '>=' ? cmp >= 0 : m[1] === '<=' ? cmp <= 0 : m[1] === '>' ? cmp > 0 : m[1] === '<' ? cmp < 0 : cmp === 0;
  });
}

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
