/**
 * Property: for random desired sets over the simulator's fixtures, apply then plan is empty, and
 * applying twice leaves the service exactly as applying once.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { PILOT_FIRST } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const CATALOG: [string, string[]][] = [
  ['7-Zip', ['24.08', '24.07', '23.01']],
  ['PowerShell 7', ['7.4.6', '7.4.5']],
];

const pkgArb = fc.record({ app: fc.integer({ min: 0, max: 1 }), version: fc.integer({ min: 0, max: 2 }) });
const flowArb = fc.record({ fromPatchGroup: fc.boolean(), radar: fc.boolean() });
const depArb = fc.record({
  flow: fc.nat(),
  pkg: fc.nat(),
  state: fc.constantFrom('pending', 'running', 'stopped'),
  wave: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
});
const modelArb = fc.record({
  packages: fc.uniqueArray(pkgArb, { minLength: 1, maxLength: 4, selector: (p) => `${p.app}:${p.version % CATALOG[p.app]![1].length}` }),
  flows: fc.array(flowArb, { minLength: 1, maxLength: 3 }),
  deployments: fc.array(depArb, { maxLength: 5 }),
});
type Model = typeof modelArb extends fc.Arbitrary<infer T> ? T : never;

function yamlOf(m: Model): string {
  const docs: string[] = [];
  m.packages.forEach((p, i) => {
    const [app, versions] = CATALOG[p.app]!;
    docs.push(
      `apiVersion: packsync.dev/v1\nkind: Package\nmetadata: { name: p${i} }\nspec:\n  catalog: { app: "${app}", version: "${versions[p.version % versions.length]!}" }\n`,
    );
  });
  m.flows.forEach((f, i) => {
    const extra = `${f.fromPatchGroup ? `\n  patchGroup: ${PILOT_FIRST}` : ''}${f.radar ? '\n  flags: [radarTracking]' : ''}`;
    docs.push(`apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: { name: f${i} }\nspec:\n  name: Flow ${i}${extra}\n`);
  });
  const seen = new Set<string>();
  m.deployments.forEach((d, i) => {
    const key = `${d.flow % m.flows.length}/${d.pkg % m.packages.length}`;
    if (seen.has(key)) return;
    seen.add(key);
    // A gate within the flow's waves (an empty flow has one wave, "Pilot first" three): a gate
    // beyond them is a plan error once the flow exists, which is not what this property is about.
    const waves = m.flows[d.flow % m.flows.length]?.fromPatchGroup ? 3 : 1;
    const wave = d.wave !== undefined && d.state === 'running' ? `\n  wave: ${Math.min(d.wave, waves)}` : '';
    docs.push(
      `apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata: { name: d${i} }\nspec:\n  flow: f${d.flow % m.flows.length}\n  package: p${d.pkg % m.packages.length}\n  state: ${d.state}${wave}\n`,
    );
  });
  return docs.join('---\n');
}

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(async () => {
  await sim.close();
});

describe('apply is idempotent for random desired sets', () => {
  it('apply → plan is empty; a second apply changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(modelArb, async (m) => {
        await sim.admin('POST', '/_sim/reset');
        const repo = await tempDir('packsync-prop-');
        await writeFile(join(repo, 'all.yaml'), yamlOf(m));
        const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
        const first = await cli(['apply', '--auto-approve', repo], env);
        expect(first.stderr).toBe('');
        expect(first.code).toBe(0);
        const once = await sim.state();
        const plan = await cli(['plan', repo, '--detailed-exitcode'], env);
        expect(plan.code).toBe(0);
        const writes = (await sim.journal(true)).length;
        expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
        expect((await sim.journal(true)).length).toBe(writes);
        const twice = await sim.state();
        expect(twice.deployments.map((d) => d.status)).toEqual(once.deployments.map((d) => d.status));
        expect(twice.flows).toEqual(once.flows);
      }),
      { numRuns: Number(process.env.PACKSYNC_PROPERTY_RUNS ?? 8), seed: 42 },
    );
  });
});
