/**
 * The reach the two-person rule judges (docs/policy.md), through `plan --policy` and `apply --policy`
 * against the simulator: a reach that cannot be told is said as such, in the agent's words.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { cli } from '../support/cli.js';
import { catalogPackageDoc, deploymentDoc, flowDoc, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

/** The small fleet's one-wave patch group: all four tenants at once. */
const EVERYONE = fixtureId(1, 'patch-group', 'Everyone at once');

let sim: TestSim;
let env: Record<string, string>;
let policy: string;

beforeEach(async () => {
  ({ sim, env } = await simEnv());
  policy = join(await tempDir('packsync-policy-'), 'policy.yaml');
  await writeFile(policy, 'approvals:\n  required: 2\n  when:\n    tenantsAbove: 1\n');
});
afterEach(() => sim.close());

it('unknown-reach-approvals-wording: plan and apply say a new flow’s start reaches an unknown number of tenants, as the agent does (regression: "reaches 0 tenants")', async () => {
  const repo = await tempDir('packsync-repo-');
  await writeFile(
    join(repo, 'all.yaml'),
    yamlDocs(
      catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'),
      flowDoc('seven-zip', '7-Zip', [`patchGroup: ${EVERYONE}`]),
      deploymentDoc('seven-zip-24-08', 'seven-zip', 'running'),
    ),
  );
  const planned = await cli(['plan', repo, '--policy', policy], env);
  expect(planned.code, planned.stderr).toBe(0);
  expect(planned.stderr).toContain('Approvals: this change reaches an unknown number of tenants (more than 1): apply needs 2');
  const before = (await sim.writes()).length;
  const applied = await cli(['apply', '--auto-approve', repo, '--policy', policy], env);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain('APPROVALS_MISSING: this change reaches an unknown number of tenants and the policy needs 2');
  expect((await sim.writes()).slice(before)).toEqual([]);
});
