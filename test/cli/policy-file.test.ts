/**
 * The rollout policy file (`--policy FILE`, docs/policy.md) as `plan` and `apply` read it, against
 * the simulator: what a valid file means, and one problem per mistake at the place it is written.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/manifests/policy-file.js';
import { cli } from '../support/cli.js';
import { catalogPackageDoc, deploymentDoc, flowDoc, PILOT_FIRST, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
let repo: string;
let policy: string;

const manifests = (state: string): string =>
  yamlDocs(
    catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'),
    flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`]),
    deploymentDoc('seven-zip-24-08', 'seven-zip', state),
  );

beforeEach(async () => {
  ({ sim, env } = await simEnv());
  repo = await tempDir('packsync-repo-');
  await writeFile(join(repo, 'all.yaml'), manifests('pending'));
  expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
  // Starting the deployment (wave 1 of "Pilot first": one tenant) is the change under test.
  await writeFile(join(repo, 'all.yaml'), manifests('running'));
  policy = join(await tempDir('packsync-policy-'), 'policy.yaml');
});
afterEach(() => sim.close());

describe('policy file', () => {
  it('policy-when-empty-is-default: `when: {}` is tenantsAbove 0 (regression: POLICY_INVALID "tenantsAbove must be a whole number")', async () => {
    await writeFile(policy, 'approvals:\n  required: 2\n  when: {}\n');
    expect(parsePolicy('policy.yaml', 'approvals:\n  required: 2\n  when: {}\n')).toEqual({
      ok: true,
      policy: { approvals: { required: 2, tenantsAbove: 0 } },
    });
    // plan reads it (exit 0) and apply holds to it: a start that reaches one tenant needs two signers.
    expect((await cli(['plan', repo, '--policy', policy], env)).code).toBe(0);
    const before = (await sim.writes()).length;
    const r = await cli(['apply', '--auto-approve', repo, '--policy', policy], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('APPROVALS_MISSING');
    expect(r.stderr).not.toContain('POLICY_INVALID');
    expect((await sim.writes()).slice(before)).toEqual([]);
  });

  it('policy-unknown-when-key-once: a misspelt key under `when` is one problem, at the key (regression: a second, bogus "tenantsAbove must be a whole number")', async () => {
    const text = 'approvals:\n  required: 2\n  when:\n    tenantsabove: 3\n';
    const parsed = parsePolicy('policy.yaml', text);
    expect(parsed.ok).toBe(false);
    const problems = parsed.ok ? [] : parsed.problems.map((p) => ({ at: `${p.line}:${p.column}`, message: p.message }));
    expect(problems).toEqual([{ at: '4:5', message: 'unknown field "tenantsabove" (when has: tenantsAbove)' }]);
    await writeFile(policy, text);
    const r = await cli(['plan', repo, '--policy', policy], env);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.includes('policy.yaml:'))).toHaveLength(1);
  });
});
