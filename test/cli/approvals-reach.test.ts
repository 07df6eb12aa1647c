/**
 * The reach the two-person rule judges (docs/policy.md), through `plan --policy` and `apply --policy`
 * against the simulator with real SSH signatures of two people: a revision is applied whole or not
 * at all, so a move a closed change window holds still counts, and a reach that cannot be told is
 * said as such.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { cli } from '../support/cli.js';
import { createRepo } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { catalogPackageDoc, deploymentDoc, flowDoc, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { ALICE, commitAs, gitAs, sshKey, writeAllowedSigners } from '../support/signing.js';
import type { Person, Signer } from '../support/signing.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const BOB: Person = { name: 'Bob', email: 'bob@example.com' };
/** The small fleet's one-wave patch group: all four tenants at once. */
const EVERYONE = fixtureId(1, 'patch-group', 'Everyone at once');
/** A Saturday noon (UTC): the window below, Sunday 01:00-02:00 in Oslo, is closed. */
const SATURDAY = Date.parse('2026-11-28T12:00:00Z');
const WINDOW = ['windows:', '  timezone: Europe/Oslo', '  allow: ["Sun 01:00-02:00"]'];

let sim: TestSim;
let env: Record<string, string>;
let repo: TestRepo;
let trusted: string;
let alice: Signer;
let bob: Signer;
let policy: string;

beforeEach(async () => {
  const s = await simEnv({ timeScale: 60, clockStart: SATURDAY });
  sim = s.sim;
  // Signatures are checked with git and ssh-keygen from PATH.
  env = { ...s.env, PATH: process.env.PATH ?? '', HOME: s.stateDir };
  const keys = await tempDir('packsync-keys-');
  const [a, b] = await Promise.all([sshKey(keys, 'alice'), sshKey(keys, 'bob')]);
  trusted = await tempDir('packsync-trusted-');
  await writeAllowedSigners(trusted, [
    { principal: ALICE.email, key: a },
    { principal: BOB.email, key: b },
  ]);
  alice = { format: 'ssh', keyFile: a.keyFile };
  bob = { format: 'ssh', keyFile: b.keyFile };
  policy = join(await tempDir('packsync-policy-'), 'policy.yaml');
  await writeFile(policy, 'approvals:\n  required: 2\n  when:\n    tenantsAbove: 1\n');
});
afterEach(() => sim.close());

const approvalFlags = (base: string): string[] => ['--policy', policy, '--approvals-range', `${base}..HEAD`, '--trusted-keys', trusted];

it('closed-window-approvals-whole-revision: a move held by a closed window still counts, so nothing of the revision is applied with one signer', async () => {
  // The flow with its window exists; one signed commit adds a package and a running deployment on it.
  repo = await createRepo((dir) => writeFile(join(dir, 'all.yaml'), flowDoc('seven-zip', '7-Zip', [`patchGroup: ${EVERYONE}`, ...WINDOW])));
  expect((await cli(['apply', '--auto-approve', repo.work], env)).code).toBe(0);
  const base = await gitAs(repo.work, ALICE, null, 'rev-parse', 'HEAD');
  await writeFile(
    join(repo.work, 'all.yaml'),
    yamlDocs(
      flowDoc('seven-zip', '7-Zip', [`patchGroup: ${EVERYONE}`, ...WINDOW]),
      catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'),
      deploymentDoc('seven-zip-24-08', 'seven-zip', 'running'),
    ),
  );
  await commitAs(repo.work, ALICE, alice, 'Add and start 7-Zip 24.08');

  // One signer: nothing at all is written (regression: the package import went through).
  const before = (await sim.writes()).length;
  const one = await cli(['apply', '--auto-approve', repo.work, ...approvalFlags(base)], env, repo.work);
  expect(one.code).toBe(1);
  expect(one.stderr).toContain('APPROVALS_MISSING');
  expect((await sim.writes()).slice(before)).toEqual([]);
  expect((await sim.state()).packages.filter((x) => x.productName === '7-Zip' && x.productVersion === '24.08')).toEqual([]);

  // The plan holds the add for the window, and keeps the revision's reach as if it were open.
  const json = await cli(['plan', repo.work, '--output', 'json'], env);
  expect(json.code, json.stderr).toBe(0);
  const p = JSON.parse(json.stdout) as Plan;
  expect(p.windows?.find((w) => w.key === 'Deployment/seven-zip-24-08')).toMatchObject({ open: false });
  expect(p.reachIfOpen).toEqual({ tenants: 4, unknown: 0 });
  const told = await cli(['plan', repo.work, '--policy', policy], env);
  expect(told.code, told.stderr).toBe(0);
  expect(told.stderr).toContain('Approvals: this change reaches 4 tenants (more than 1): apply needs 2 distinct trusted signers');

  // Bob approves: the package goes in now, the add still waits for the window.
  await commitAs(repo.work, BOB, bob, 'Approve');
  const two = await cli(['apply', '--auto-approve', repo.work, ...approvalFlags(base)], env, repo.work);
  expect(two.code, two.stderr).toBe(0);
  expect((await sim.state()).packages.some((x) => x.productName === '7-Zip' && x.productVersion === '24.08')).toBe(true);
  expect((await sim.state()).deployments).toEqual([]);

  // In the window the same range still approves the held add and start.
  const now = ((await sim.admin('GET', '/_sim/clock')) as { epochMs: number }).epochMs;
  await sim.advance(Math.ceil((Date.parse('2026-11-29T00:00:30Z') - now) / 1000));
  const open = await cli(['apply', '--auto-approve', repo.work, ...approvalFlags(base)], env, repo.work);
  expect(open.code, open.stderr).toBe(0);
  expect((await sim.state()).deployments).toEqual([expect.objectContaining({ status: 'Running' })]);
});

it('unknown-reach-approvals-wording: plan and apply say a new flow’s start reaches an unknown number of tenants, as the agent does (regression: "reaches 0 tenants")', async () => {
  repo = await createRepo((dir) =>
    writeFile(
      join(dir, 'all.yaml'),
      yamlDocs(
        catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'),
        flowDoc('seven-zip', '7-Zip', [`patchGroup: ${EVERYONE}`]),
        deploymentDoc('seven-zip-24-08', 'seven-zip', 'running'),
      ),
    ),
  );
  const planned = await cli(['plan', repo.work, '--policy', policy], env);
  expect(planned.code, planned.stderr).toBe(0);
  expect(planned.stderr).toContain('Approvals: this change reaches an unknown number of tenants (more than 1): apply needs 2');
  const before = (await sim.writes()).length;
  const applied = await cli(['apply', '--auto-approve', repo.work, '--policy', policy], env);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain('APPROVALS_MISSING: this change reaches an unknown number of tenants and the policy needs 2');
  expect((await sim.writes()).slice(before)).toEqual([]);
});
