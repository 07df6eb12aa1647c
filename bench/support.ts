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
