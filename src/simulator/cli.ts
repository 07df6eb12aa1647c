/** `packsync simulator`: starts the server and prints how to call it. */
import { fixtureId } from './fixture-ids.js';
import { startSimulator } from './server.js';
import type { Simulator, SimulatorOptions } from './server.js';

/**
 * Virtual seconds per real second of a standalone simulator, the same as the demo. At 1, an
 * import took 32 s and a `wait=true` tenant upload held its request 40 s (past the 30 s timeout
 * of RoboPackCLI), and `apply examples` took 96 s with nothing saying why; at 600 they finish in
 * well under a second, while a 24 h wave still lasts 2.4 real minutes. `--time-scale 1` is real time.
 */
export const DEFAULT_TIME_SCALE = 600;

export async function runSimulatorCommand(
  opts: SimulatorOptions & { apiKeys: string[]; seed: number },
  print: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<Simulator> {
  const timeScale = opts.timeScale ?? DEFAULT_TIME_SCALE;
  const sim = await startSimulator({ ...opts, timeScale });
  const keyHint =
    opts.apiKeys.length === 1 && opts.apiKeys[0] === 'sim-key'
      ? 'sim-key'
      : `the key${opts.apiKeys.length > 1 ? 's' : ''} you passed with --api-key`;
  const time =
    timeScale === 1 ? 'real time' : `time x${timeScale}: ${timeScale} virtual seconds per real second, --time-scale 1 for real time`;
  print(
    [
      `packsync simulator listening on ${sim.url} (${sim.operations} operations, fleet ${opts.fleet ?? 'small'}, seed ${opts.seed}, ${time}${opts.dataDir ? `, state in ${opts.dataDir}` : ''})`,
      `  API key: ${keyHint} (one isolated account per key)`,
      ...(opts.fleet === 'none'
        ? []
        : [
            `  patch groups: Pilot first ${fixtureId(opts.seed, 'patch-group', 'Pilot first')}, Servers ${fixtureId(opts.seed, 'patch-group', 'Servers')}, Everyone at once ${fixtureId(opts.seed, 'patch-group', 'Everyone at once')}`,
          ]),
      `  try: curl -H 'X-API-Key: ${keyHint === 'sim-key' ? 'sim-key' : '<key>'}' ${sim.url}/v1/tenant`,
      `  admin: ${sim.url}/_sim/journal, /_sim/clock, /_sim/releases, /_sim/faults, /_sim/outcomes, /_sim/fixtures, /_sim/reset, /_sim/state`,
      `  packsync: export PACKSYNC_API_URL=${sim.url} PACKSYNC_API_KEY=${keyHint === 'sim-key' ? 'sim-key' : '<key>'}`,
    ].join('\n'),
  );
  return sim;
}
