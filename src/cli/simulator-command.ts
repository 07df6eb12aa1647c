import type { Command } from 'commander';
import { Option } from 'commander';
import { addOutputOptions } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { parseDuration } from '../manifests/promotion-values.js';
import { intFlag } from './flag-values.js';

interface SimulatorFlags {
  host: string;
  port: string;
  apiKey: string[];
  fleet: 'none' | 'small' | 'large';
  seed: string;
  latency?: string;
  faults?: string;
  rateLimit?: string;
  timeScale?: string;
  dataDir?: string;
  releaseEvery?: string;
  responseStyle: 'bare' | 'object' | 'text';
}

export function registerSimulatorCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('simulator')
    .description('run the API simulator (all 38 operations, state machines, faults, journal)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port, up to 65535)', '4010')
    // The parsed default stays [] (the first --api-key replaces sim-key instead of joining it); help shows the real one.
    .addOption(
      new Option('--api-key <key>', 'an account key (repeat for several isolated accounts)')
        .argParser((v: string, prev: string[]) => [...prev, v])
        .default([], 'sim-key'),
    )
    .addOption(new Option('--fleet <size>', 'fixtures to load').choices(['none', 'small', 'large']).default('small'))
    .option('--seed <n>', 'fixture and fault seed (0-2147483647)', '1')
    .option('--latency <ms>', 'milliseconds added to every /v1 request (0-60000)')
    .option('--faults <spec>', "fault spec, e.g. '5xx=0.1,429=0.05,reset=0.02,latency=100ms'")
    .option('--rate-limit <n>', 'requests per second per account, 429 over it (1-100000)')
    .option(
      '--time-scale <n>',
      'virtual seconds per real second (default 600, as in the demo: imports and uploads finish in well under a second; 1 = real time)',
    )
    .option('--data-dir <dir>', 'persist state here so a restart keeps it')
    .option(
      '--release-every <duration>',
      'publish a next version of a seeded choice of catalog app every DURATION of virtual time (e.g. 7d, 12h; default off)',
    )
    .addOption(
      new Option('--response-style <style>', 'create/import responses as a JSON string UUID, {"id"}, or an unquoted text/plain UUID')
        .choices(['bare', 'object', 'text'])
        .default('bare'),
    );
  addOutputOptions(cmd, { colour: false }).action(async (f: SimulatorFlags) => {
    // Listening for the stop before the simulator says it listens: a SIGTERM sent the moment that
    // line appears (a supervisor, a test) found no handler yet and killed the process uncleanly.
    const stopRequested = new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    const { runSimulatorCommand } = await import('../simulator/cli.js');
    const sim = await runSimulatorCommand({
      host: f.host,
      port: intFlag(f.port, '--port'),
      apiKeys: f.apiKey.length > 0 ? f.apiKey : ['sim-key'],
      fleet: f.fleet,
      seed: intFlag(f.seed, '--seed'),
      responseStyle: f.responseStyle,
      ...(f.latency ? { latencyMs: intFlag(f.latency, '--latency') } : {}),
      ...(f.faults ? { faults: f.faults } : {}),
      ...(f.rateLimit ? { rateLimit: intFlag(f.rateLimit, '--rate-limit') } : {}),
      ...(f.timeScale !== undefined ? { timeScale: timeScale(f.timeScale) } : {}),
      ...(f.dataDir ? { dataDir: f.dataDir } : {}),
      ...(f.releaseEvery !== undefined ? { releaseEveryMs: releaseEvery(f.releaseEvery) } : {}),
    });
    await stopRequested;
    await sim.close();
    io.stderr('simulator stopped');
  });
}

/**
 * Virtual seconds per real second, from 0.001 to 1,000,000; fractions are allowed (0.5 = half speed).
 * Below 0.001 the clock stands still in practice (a 24 h wave delay would take 2.7 years), so a
 * demo or test would wait forever; 0 froze it outright.
 */
export function timeScale(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n >= 0.001 && n <= 1_000_000))
    throw new UsageError(`--time-scale must be a number from 0.001 to 1000000 (got "${value}")`);
  return n;
}

/** `--release-every`: a duration of virtual time (`7d`, `12h`, `1d12h`, `30m`), at least a minute. */
export function releaseEvery(value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch {
    throw new UsageError(`--release-every must be a duration like 7d, 12h, 1d12h or 30m (got "${value}")`);
  }
  if (ms < 60_000) throw new UsageError(`--release-every must be at least 1m (got "${value}")`);
  return ms;
}
