/**
 * The order of catalog versions, shared by `packsync update` (update/versions.ts) and the simulator's
 * idea of an app's latest version (simulator/releases.ts). Versions compare by their dot-, dash- or
 * underscore-separated parts: numbers as numbers, anything else as text after numbers (`24.10` >
 * `24.9`, `1.0` < `1.0.1`, `1.0-beta` < `1.0.1`). It is how the catalog's versions are written
 * (`24.08`, `7.4.6`, `131.0.6778.86`); it is not semver.
 */
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
