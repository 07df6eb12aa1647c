/**
 * `npm run bench -- --scenario NAME [--json] [scenario options]`. Every timing is measured beside
 * its baseline in the same run; with --json the last line printed is
 * `{"scenario", "metrics", "baseline"}`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SCENARIOS } from './scenarios/index.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string' },
    json: { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
    // Read by the scenarios themselves.
    'size-mib': { type: 'string' }, // upload: content size, default 1024
    rounds: { type: 'string' }, // upload: alternating rounds, default 2
    runs: { type: 'string' }, // commit-latency: pushes, default 20; stop-latency: stops per phase, default 15; install-cold: default 3
    flows: { type: 'string' }, // commit-latency: fleet size in flows, default 50; stop-latency: default 10; fleet-10x: default 3000
    'heap-snapshot': { type: 'boolean' }, // fleet-10x: write a heap snapshot after the converge
    'cpu-profile': { type: 'boolean' }, // fleet-10x: CPU profile of the no-op pass; fleet-cli: of both CLI runs; patch-tuesday: of the update and the apply
    'sim-cpu-profile': { type: 'boolean' }, // fleet-cli, patch-tuesday: the simulator process's own CPU profile
    'kill-after-s': { type: 'string' }, // crash-10x: seconds before the SIGKILL, default 45
    'cli-flags': { type: 'string' }, // fleet-cli: extra flags for both CLI runs, to try one
    'node-flags': { type: 'string' }, // fleet-cli, patch-tuesday: Node flags for the measured CLI runs (a heap policy), to try one
    again: { type: 'boolean' }, // fleet-cli: the no-op once more (a later pass, the files known by their stat)
    timeline: { type: 'boolean' }, // fleet-cli, patch-tuesday: each measured run's calls in two-second buckets
  },
});
const names = Object.keys(SCENARIOS);
// --help and --list print the usage and succeed; no scenario is a usage error.
const asked = values.list === true || values.help === true;
if (asked || typeof values.scenario !== 'string') {
  process.stdout.write(
    `scenarios: ${names.join(', ')}\nusage: npm run bench -- --scenario NAME [--json] [--size-mib N] [--rounds N] [--runs N] [--flows N] [--heap-snapshot] [--cpu-profile] [--sim-cpu-profile] [--timeline] [--again] [--kill-after-s N] [--cli-flags "..."] [--node-flags "..."]\n`,
  );
  process.exit(asked ? 0 : 2);
}
const run = SCENARIOS[values.scenario];
if (!run) {
  process.stderr.write(`unknown scenario "${values.scenario}"; known: ${names.join(', ')}\n`);
  process.exit(2);
}
const log = (s: string): void => {
  process.stdout.write(`${s}\n`);
};
// The run's own temp folder (as the test suites have, test/global-setup.ts): the fleets, state
// directories and repositories the scenarios make under TMPDIR, and what their children make, are
// removed when it ends (each fleet-cli run used to leave ~20 MB in the machine's /tmp). Profiles and
// heap snapshots are kept in the machine's folder (`keptPath`, bench/support.ts).
process.env.PACKSYNC_BENCH_KEEP ||= tmpdir();
const runDir = mkdtempSync(join(tmpdir(), 'packsync-bench-run-'));
process.env.TMPDIR = runDir;
const result = await run(log, values).finally(() => rmSync(runDir, { recursive: true, force: true, maxRetries: 3 }));
log(
  `${values.scenario}: ${JSON.stringify(result.metrics)}${Object.keys(result.baseline).length ? ` baseline ${JSON.stringify(result.baseline)}` : ''}`,
);
if (values.json === true) log(JSON.stringify({ scenario: values.scenario, metrics: result.metrics, baseline: result.baseline }));
// Scenarios close what they open; exit anyway so a stray handle cannot hold the process open.
process.exit(0);
