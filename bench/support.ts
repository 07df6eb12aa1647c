/**
 * Shared pieces of the benchmarks. The simulator in its own process (`startSimulatorProcess`) and
 * the generated fleets (`writeFleet`) are the tests' own, from test/support.
 */
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
export const RUN = fileURLToPath(new URL('./run.js', import.meta.url));

/**
 * The V8 heap limits the shipped agent manifests set (`NODE_OPTIONS` in
 * deploy/kubernetes/agent-git.yaml and sidecar-git-sync.yaml, next to their 256 MiB memory limit;
 * test/deploy/heap-options.test.ts keeps them equal). Without a limit V8 sizes the heap from the
 * host's memory and lets garbage pile up far past what is live (fleet-10x: 479 MiB RSS for under
 * 130 MiB live), which in a 256 MiB container is an OOM kill.
 */
export const AGENT_NODE_OPTIONS = '--max-old-space-size=112 --max-semi-space-size=4';

export const rssMiB = (): number => Math.round((process.memoryUsage().rss / 1048576) * 10) / 10;

/**
 * `--timeline`: what the service saw during one phase, in two-second buckets, the busiest routes of
 * each (ids replaced by `{id}`): where a phase waits, and on what, read from the journal rather
 * than guessed (docs/performance.md). `entries` are the journal's entries from the phase's start.
 */
export function journalTimeline(entries: readonly { time: string; method: string; path: string }[], bucketMs = 2000): string[] {
  if (entries.length === 0) return [];
  const t0 = Date.parse(entries[0]!.time);
  const buckets = new Map<number, Map<string, number>>();
  for (const e of entries) {
    const b = Math.floor((Date.parse(e.time) - t0) / bucketMs);
    const routes = buckets.get(b) ?? new Map<string, number>();
    const route = `${e.method} ${e.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '{id}')}`;
    routes.set(route, (routes.get(route) ?? 0) + 1);
    buckets.set(b, routes);
  }
  return [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, routes]) => {
      const top = [...routes].sort((x, y) => y[1] - x[1]).slice(0, 3);
      return `${String((b * bucketMs) / 1000).padStart(5)} s  ${top.map(([r, n]) => `${r} ×${n}`).join(' | ')}`;
    });
}
