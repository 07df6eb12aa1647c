/** `packsync simulator`: starts the server and prints how to call it. */
import { fixtureId } from './fixture-ids.js';
import { startSimulator } from './server.js';
import type { Simulator, SimulatorOptions } from './server.js';

export async function runSimulatorCommand(opts: SimulatorOptions & { apiKeys: string[]; seed: number }, print: (s: string) => void = (s) => process.stderr.write(`${s}\n`)): Promise<Simulator> {
  const sim = await startSimulator(opts);
  const keyHint = opts.apiKeys.length === 1 && opts.apiKeys[0] === 'sim-key' ? 'sim-key' : `the key${opts.apiKeys.length > 1 ? 's' : ''} you passed with --api-key`;
  print(
    [
      `packsync simulator listening on ${sim.url} (${sim.operations} operations, fleet ${opts.fleet ?? 'small'}, seed ${opts.seed}${opts.timeScale ? `, time x${opts.timeScale}` : ''}${opts.dataDir ? `, state in ${opts.dataDir}` : ''})`,
      `  API key: ${keyHint} (one isolated account per key)`,
      ...(opts.fleet === 'none'
        ? []
        : [`  patch groups: Pilot first ${fixtureId(opts.seed, 'patch-group', 'Pilot first')}, Servers ${fixtureId(opts.seed, 'patch-group', 'Servers')}, Everyone at once ${fixtureId(opts.seed, 'patch-group', 'Everyone at once')}`]),
      `  try: curl -H 'X-API-Key: ${keyHint === 'sim-key' ? 'sim-key' : '<key>'}' ${sim.url}/v1/tenant`,
      `  admin: ${sim.url}/_sim/journal, /_sim/clock, /_sim/faults, /_sim/outcomes, /_sim/reset, /_sim/state`,
      `  packsync: export PACKSYNC_API_URL=${sim.url} PACKSYNC_API_KEY=<key>`,
    ].join('\n'),
  );
  return sim;
}
