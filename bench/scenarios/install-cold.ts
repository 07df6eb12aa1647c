/**
 * `npm ci` on a fresh clone with an empty npm cache, as a new developer runs it (its `prepare`
 * build included), against the one-minute bound of issue #12 and beside a warm-cache `npm ci` of
 * the same clone measured in the same run (the difference is what the registry costs). Also counts
 * what the registry sent, from the npm cache's index: tarballs, registry documents (packuments) and
 * bytes. Needs the network; clones the repository's committed HEAD, so commit before measuring.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from './types.js';
import { median, round } from './types.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BOUND_MS = 60_000;

interface Fetched {
  tarballs: number;
  packuments: number;
  mib: number;
}

/** What the npm cache (cacache) recorded: one index line per stored response. */
function fetched(cache: string): Fetched {
  const out: Fetched = { tarballs: 0, packuments: 0, mib: 0 };
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else
        for (const line of readFileSync(path, 'utf8').split('\n')) {
          const tab = line.indexOf('\t');
          if (tab < 0) continue;
          const entry = JSON.parse(line.slice(tab + 1)) as { key: string; size?: number };
          if (!entry.key.startsWith('make-fetch-happen:request-cache:')) continue;
          if (entry.key.includes('/-/')) out.tarballs++;
          else out.packuments++;
          out.mib += (entry.size ?? 0) / 2 ** 20;
        }
    }
  };
  walk(join(cache, '_cacache', 'index-v5'));
  return out;
}

function npmCi(cwd: string, cache: string): number {
  rmSync(join(cwd, 'node_modules'), { recursive: true, force: true });
  rmSync(join(cwd, 'dist'), { recursive: true, force: true });
  const t = performance.now();
  const r = spawnSync('npm', ['ci'], {
    cwd,
    stdio: 'pipe',
    env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' },
  });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`npm ci failed (${r.status}): ${r.stderr.toString().slice(-2000)}`);
  return ms;
}

export const installCold: Scenario = (log, args) => {
  const runs = Number(args.runs ?? 3);
  const work = mkdtempSync(join(tmpdir(), 'packsync-install-'));
  try {
    const clone = join(work, 'clone');
    execFileSync('git', ['clone', '-q', ROOT, clone]);
    const cold: number[] = [];
    let last: Fetched = { tarballs: 0, packuments: 0, mib: 0 };
    let cache = '';
    for (let i = 0; i < runs; i++) {
      if (cache) rmSync(cache, { recursive: true, force: true });
      cache = mkdtempSync(join(work, 'cache-'));
      cold.push(npmCi(clone, cache));
      last = fetched(cache);
      log(
        `cold npm ci ${i + 1}/${runs}: ${round(cold[i]! / 1000)} s, ${last.tarballs} tarballs, ${last.packuments} packuments, ${round(last.mib)} MiB`,
      );
    }
    const warm = npmCi(clone, cache);
    log(`warm npm ci: ${round(warm / 1000)} s`);
    const coldMs = median(cold);
    return Promise.resolve({
      metrics: {
        coldMs: round(coldMs),
        coldMinMs: round(Math.min(...cold)),
        coldMaxMs: round(Math.max(...cold)),
        tarballs: last.tarballs,
        packuments: last.packuments,
        fetchedMiB: round(last.mib),
      },
      baseline: { boundMs: BOUND_MS, ratio: round(coldMs / BOUND_MS, 2), warmMs: round(warm), coldOverWarm: round(coldMs / warm, 2) },
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};
