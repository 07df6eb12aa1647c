/**
 * The files of the last valid load by their stat, as git's index knows a work tree's files: when
 * every file still has the size, times, inode and device it had when its bytes were read and hashed,
 * a load takes the recorded digests instead of reading the files again (3,770 files, ~0.1 s of a
 * fleet-scale no-op before its first call; docs/performance.md, fleet-cli).
 *
 * The kernel sets a file's ctime on every write, and no tool can set it back (unlike the mtime,
 * which `touch -d`, `rsync -t` or an archive restore set at will), so a rewrite that keeps the size
 * and the mtime is still seen. A file written in the same clock tick as its read could keep its
 * times (git's "racily clean" file): a stat is recorded only for a file whose times are older than
 * the read by a window, and any other file is read again by the next load, and recorded then. The
 * window is `LOCAL_RACY_MS` on a local Linux file system known to stamp files from this kernel's
 * clock in nanoseconds (a tick is at most 10 ms), and `RACY_MS` anywhere else, which covers the
 * coarsest timestamps of common file systems (FAT's 2 s) and some clock skew of a network one.
 */
import { statfsSync, statSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';

export const RACY_MS = 3000;
export const LOCAL_RACY_MS = 100;

/** statfs(2) magic numbers: ext2/3/4, XFS, Btrfs, tmpfs, overlayfs (a container's), F2FS, ZFS on Linux. */
const LOCAL_FS_TYPES = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0xf2f52010, 0x2fc12fc1]);

/** The window for a file system of statfs `type` (undefined: unknown). */
export function racyMsOf(type: number | undefined): number {
  return type !== undefined && LOCAL_FS_TYPES.has(type) ? LOCAL_RACY_MS : RACY_MS;
}

/**
 * How settled a file's stat must be, judged per file: the window of the file system `root` is on
 * for files on root's device, `RACY_MS` for a file on another (a mount inside the repository).
 */
export function racyWindow(root: string): (s: BigIntStats) => number {
  let dev: bigint | undefined;
  let type: number | undefined;
  try {
    dev = statSync(root, { bigint: true }).dev;
    type = statfsSync(root).type;
  } catch {
    // Unknown: every file gets the wide window.
  }
  const local = racyMsOf(type);
  return (s) => (dev !== undefined && s.dev === dev ? local : RACY_MS);
}

const FORMAT = 'packsync-stat/1';

/** What is compared: size, mtime and ctime in nanoseconds, inode, device. */
export function statKey(s: BigIntStats): string {
  return `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}:${s.dev}`;
}

/** Whether a stat taken when the clock read `readAtMs` may stand for the file's bytes later, `windowMs` after its last change. */
export function settled(s: BigIntStats, readAtMs: number, windowMs: number): boolean {
  const limit = BigInt(Math.floor(readAtMs - windowMs)) * 1_000_000n;
  return s.mtimeNs < limit && s.ctimeNs < limit;
}

export interface StatRecord {
  /** The key of the load (`filesKey`, load-revision.ts) whose files these are. */
  key: string;
  /** Per file as the load names it: the sha256 of its bytes, and its stat when settled. */
  files: Map<string, { sha: string; stat: string | null }>;
}

/** The record as text: a header naming the loader (`by`) and the key, then one line per file; undefined when a name cannot be written so. */
export function formatStatRecord(by: string, r: StatRecord): string | undefined {
  const lines = [`${FORMAT} ${by} ${r.key}`];
  for (const [file, f] of r.files) {
    if (/[\t\n\r]/.test(file)) return undefined;
    lines.push(`${f.sha}\t${f.stat ?? '-'}\t${file}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The record in `text` when it is whole and was written by this loader (`by`), else undefined. */
export function parseStatRecord(text: string, by: string): StatRecord | undefined {
  // A record cut short by a crash lacks its last newline: not trusted.
  if (!text.endsWith('\n')) return undefined;
  const lines = text.slice(0, -1).split('\n');
  const [format, writer, key, extra] = lines[0]!.split(' ');
  if (format !== FORMAT || writer !== by || !key || extra !== undefined) return undefined;
  const files = new Map<string, { sha: string; stat: string | null }>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const a = line.indexOf('\t');
    const b = line.indexOf('\t', a + 1);
    if (a !== 64 || b < 0) return undefined;
    const stat = line.slice(a + 1, b);
    files.set(line.slice(b + 1), { sha: line.slice(0, a), stat: stat === '-' ? null : stat });
  }
  return { key, files };
}

/**
 * The recorded digests of `sources` (in their order) when they are exactly the recorded files and
 * each still has its recorded stat; undefined as soon as one differs, is gone or was not settled.
 */
export function unchangedFiles(
  r: StatRecord,
  sources: readonly { file: string; abs: string }[],
): { file: string; sha: string }[] | undefined {
  if (sources.length !== r.files.size) return undefined;
  const out: { file: string; sha: string }[] = [];
  for (const { file, abs } of sources) {
    const f = r.files.get(file);
    if (!f || f.stat === null) return undefined;
    const s = statSync(abs, { bigint: true, throwIfNoEntry: false });
    if (!s || !s.isFile() || statKey(s) !== f.stat) return undefined;
    out.push({ file, sha: f.sha });
  }
  return out;
}
