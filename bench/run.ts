/**
 * `npm run bench -- --scenario NAME [--json]`. Every timing is measured beside its baseline in the
 * same run; with --json the last line printed is `{"scenario", "metrics", "baseline"}`.
 */
import { parseArgs } from 'node:util';
import { SCENARIOS } from './scenarios/index.js';

const { values } = parseArgs({
  options: { scenario: { type: 'string' }, json: { type: 'boolean', default: false }, list: { type: 'boolean', default: false } },
});
const names = Object.keys(SCENARIOS);
if (values.list || !values.scenario) {
  process.stdout.write(`scenarios: ${names.join(', ')}\nusage: npm run bench -- --scenario NAME [--json]\n`);
  process.exit(values.list ? 0 : 2);
}
const run = SCENARIOS[values.scenario];
if (!run) {
  process.stderr.write(`unknown scenario "${values.scenario}"; known: ${names.join(', ')}\n`);
  process.exit(2);
}
const log = (s: string): void => {
  process.stdout.write(`${s}\n`);
};
const result = await run(log);
log(`${values.scenario}: ${JSON.stringify(result.metrics)}${Object.keys(result.baseline).length ? ` baseline ${JSON.stringify(result.baseline)}` : ''}`);
if (values.json) log(JSON.stringify({ scenario: values.scenario, metrics: result.metrics, baseline: result.baseline }));
