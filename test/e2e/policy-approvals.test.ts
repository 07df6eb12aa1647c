/**
 * Blast radius and the two-person rule (docs/policy.md) through the built CLI against the simulator:
 * the figures are checked against the simulator's own fixtures (the flow's patch group waves and
 * each tenant's managed devices), and approvals are real SSH signatures of two people.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { cli } from '../support/cli.js';
import { spawnCli } from '../support/spawn-cli.js';
import { startAgent } from '../support/agent-process.js';
import { git } from '../support/git.js';
import { createRepo } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { catalogPackageDoc, deploymentDoc, flowDoc, PILOT_FIRST, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { ALICE, commitAs, gitAs, sshKey, writeAllowedSigners } from '../support/signing.js';
import type { Person, Signer } from '../support/signing.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const BOB: Person = { name: 'Bob', email: 'bob@example.com' };
/** The small fleet's one-wave patch group: all four tenants at once. */
const EVERYONE = fixtureId(1, 'patch-group', 'Everyone at once');

let sim: TestSim;
let env: Record<string, string>;
let repo: TestRepo;
let trusted: string;
let alice: Signer;
let bob: Signer;
let policy: string;

const manifests = (state: string): string =>
  yamlDocs(
    catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'),
    flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`]),
    deploymentDoc('seven-zip-24-08', 'seven-zip', state),
  );

beforeEach(async () => {
  sim = await startTestSimulator({ timeScale: 60 });
  const stateDir = await tempDir('packsync-state-');
  env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir };
  // The flow and the package exist, the deployment is pending: starting it is the change under test.
  repo = await createRepo((dir) => writeFile(join(dir, 'all.yaml'), manifests('pending')));
  expect((await cli(['apply', '--auto-approve', repo.work], env)).code).toBe(0);
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
  await writeFile(policy, 'approvals:\n  required: 2\n  when:\n    tenantsAbove: 0\n');
});
afterEach(async () => {
  await sim.close();
});

/** The agent on the repository with the two-person policy and both people's keys trusted. */
const policyAgent = async (...extra: string[]): ReturnType<typeof startAgent> =>
  startAgent(
    ['--source', repo.fileUrl, '--policy', policy, '--trusted-keys', trusted, '--interval', '1h', ...extra],
    env,
    await tempDir('packsync-secret-'),
  );

/** What wave 1 of "Pilot first" reaches, from the simulator's fixtures (not from packsync). */
async function wave1(): Promise<{ tenants: number; devices: number; waves: number }> {
  const fx = (await sim.admin('GET', '/_sim/fixtures')) as {
    tenants: { id: string; devices: number }[];
    patchGroups: { id: string; waves: { tenantIds: string[] }[] }[];
  };
  const group = fx.patchGroups.find((g) => g.id === PILOT_FIRST)!;
  const ids = group.waves[0]!.tenantIds;
  const devices = ids.reduce((n, id) => n + (fx.tenants.find((t) => t.id === id)?.devices ?? 0), 0);
  return { tenants: ids.length, devices, waves: group.waves.length };
}

describe('blast radius', () => {
  it('the start reaches wave 1’s tenants and their live device counts: per action, in the summary, in text and markdown', async () => {
    await writeFile(join(repo.work, 'all.yaml'), manifests('running'));
    const want = await wave1();
    const json = await cli(['plan', repo.work, '--output', 'json'], env);
    expect(json.code, json.stderr).toBe(0);
    const p = JSON.parse(json.stdout) as Plan;
    const start = p.actions.find((a) => a.op === 'start');
    expect(start).toMatchObject({ tenants: want.tenants, devices: want.devices });
    expect(p.summary).toMatchObject({ tenants: want.tenants, devices: want.devices });
    const line = `reaches ${want.tenants} tenant${want.tenants === 1 ? '' : 's'} (wave 1 of ${want.waves}), ${want.devices.toLocaleString('en-US')} devices`;
    expect((await cli(['plan', repo.work], env)).stdout).toContain(line);
    expect((await cli(['plan', repo.work, '--output', 'markdown'], env)).stdout).toContain(line);
  });
});

describe('two-person rule', () => {
  it('apply refuses a change reaching more tenants than the policy allows until two distinct trusted people signed the range', async () => {
    const base = await gitAs(repo.work, ALICE, null, 'rev-parse', 'HEAD');
    await writeFile(join(repo.work, 'all.yaml'), manifests('running'));
    await commitAs(repo.work, ALICE, alice, 'Start 7-Zip 24.08');
    const writes = (await sim.writes()).length;
    const args = [
      'apply',
      '--auto-approve',
      repo.work,
      '--policy',
      policy,
      '--approvals-range',
      `${base}..HEAD`,
      '--trusted-keys',
      trusted,
    ];

    // plan --policy says what apply will ask for, and who signed so far, without failing.
    const planned = await spawnCli(
      ['plan', repo.work, '--policy', policy, '--approvals-range', `${base}..HEAD`, '--trusted-keys', trusted],
      env,
    ).done;
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stderr).toContain('Approvals: waits for approval: reaches 1 tenants (more than 0), needs 2 distinct trusted signers');

    const one = await spawnCli(args, env, 'pipe', repo.work).done;
    expect(one.code).toBe(1);
    expect(one.stderr).toContain('APPROVALS_MISSING');
    expect(one.stderr).toContain('found 1 (alice@example.com), 1 missing');
    expect((await sim.writes()).slice(writes)).toEqual([]);

    // Bob approves with an empty signed commit.
    await commitAs(repo.work, BOB, bob, 'Approve');
    const two = await spawnCli(args, env, 'pipe', repo.work).done;
    expect(two.code, two.stderr).toBe(0);
    expect(two.stderr).toContain('approved by alice@example.com, bob@example.com');
    expect((await sim.writes()).slice(writes)).toEqual(['POST /v1/flow/deployment/{id}/start']);
  });

  it('a policy file that is not valid names FILE:LINE:COL and nothing is read or applied', async () => {
    await writeFile(policy, 'approvals:\n  required: two\n  when: { tenantsAbov: 3 }\n');
    const r = await cli(['apply', '--auto-approve', repo.work, '--policy', policy], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/policy\.yaml:2:13: approvals\.required must be a whole number/);
    expect(r.stderr).toMatch(/policy\.yaml:3:11: unknown field "tenantsAbov"/);
  });

  it('the agent (run --policy) applies nothing of a revision until the commits since the last applied one carry two trusted signers', async () => {
    const agent = await policyAgent();
    try {
      // The first pass changes nothing (no approval needed) and is the start of the next range.
      await agent.until('the first pass', (s) => s.passes >= 1 && s.history[0]?.result === 'Succeeded');
      const writes = (await sim.writes()).length;
      await writeFile(join(repo.work, 'all.yaml'), manifests('running'));
      await commitAs(repo.work, ALICE, alice, 'Start 7-Zip 24.08');
      await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
      const waiting = await agent.reconcile();
      expect(waiting.approvals).toMatchObject({ ok: false, signers: [ALICE.email], missing: 1, required: 2 });
      expect(agent.condition(waiting, 'Ready')).toMatchObject({ status: 'False', reason: 'ApprovalPending' });
      expect(waiting.events.filter((e) => e.reason === 'ApprovalPending')).toHaveLength(1);
      expect((await sim.writes()).slice(writes)).toEqual([]);
      // The status page says it too.
      expect(await (await fetch(agent.base)).text()).toContain('Waiting for approval');

      await commitAs(repo.work, BOB, bob, 'Approve');
      await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
      const approved = await agent.reconcile();
      expect(approved.history[0]?.result).toBe('Succeeded');
      expect(approved.approvals).toMatchObject({ ok: true, signers: [ALICE.email, BOB.email], missing: 0 });
      expect((await sim.writes()).slice(writes)).toEqual(['POST /v1/flow/deployment/{id}/start']);
    } finally {
      await agent.stop();
    }
  });

  it('a start held by a closed window is judged with the commit that made it once the window opens (regression: the held pass ended the range, the author’s signature fell out)', async () => {
    // A window on one whole day two days ahead of the simulator's clock: closed now, open after advancing.
    const now = ((await sim.admin('GET', '/_sim/clock')) as { epochMs: number }).epochMs;
    const day = new Date(now + 2 * 86_400_000).toLocaleDateString('en-US', { weekday: 'short', timeZone: 'UTC' });
    const windowed = (state: string): string =>
      yamlDocs(
        catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'),
        flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`, 'windows:', '  timezone: UTC', `  allow: ["${day} 00:00-23:59"]`]),
        deploymentDoc('seven-zip-24-08', 'seven-zip', state),
      );
    await writeFile(join(repo.work, 'all.yaml'), windowed('pending'));
    await commitAs(repo.work, ALICE, alice, 'Window for 7-Zip');
    await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
    const agent = await policyAgent();
    try {
      await agent.until('the first pass', (s) => s.passes >= 1 && s.history[0]?.result === 'Succeeded');
      const writes = (await sim.writes()).length;
      await writeFile(join(repo.work, 'all.yaml'), windowed('running'));
      await commitAs(repo.work, ALICE, alice, 'Start 7-Zip 24.08');
      await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
      // The window is closed: the start is held, nothing asks for approval yet and nothing is written.
      const held = await agent.reconcile();
      expect(held.history[0]?.result).toBe('Succeeded');
      expect((await sim.writes()).slice(writes)).toEqual([]);

      await sim.advance(2 * 86_400);
      const waiting = await agent.reconcile();
      expect(waiting.approvals).toMatchObject({ ok: false, signers: [ALICE.email], missing: 1 });
      expect((await sim.writes()).slice(writes)).toEqual([]);

      await commitAs(repo.work, BOB, bob, 'Approve');
      await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
      const approved = await agent.reconcile();
      expect(approved.approvals).toMatchObject({ ok: true, signers: [ALICE.email, BOB.email], missing: 0 });
      expect((await sim.writes()).slice(writes)).toEqual(['POST /v1/flow/deployment/{id}/start']);
    } finally {
      await agent.stop();
    }
  });

  it('closed-window-agent-withholds-whole-revision: a start held by a closed window still counts, so the agent applies nothing of a one-signer revision (regression: the package import applied, approvals None)', async () => {
    // A window on one whole day two days ahead of the simulator's clock: closed now.
    const now = ((await sim.admin('GET', '/_sim/clock')) as { epochMs: number }).epochMs;
    const day = new Date(now + 2 * 86_400_000).toLocaleDateString('en-US', { weekday: 'short', timeZone: 'UTC' });
    const flow = flowDoc('seven-zip-all', '7-Zip', [
      `patchGroup: ${EVERYONE}`,
      'windows:',
      '  timezone: UTC',
      `  allow: ["${day} 00:00-23:59"]`,
    ]);
    await writeFile(join(repo.work, 'all.yaml'), yamlDocs(manifests('pending'), flow));
    await commitAs(repo.work, ALICE, alice, 'A flow for everyone, with its window');
    await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
    await writeFile(policy, 'approvals:\n  required: 2\n  when:\n    tenantsAbove: 1\n');
    const agent = await policyAgent();
    try {
      await agent.until('the first pass', (s) => s.passes >= 1 && s.history[0]?.result === 'Succeeded');
      const writes = (await sim.writes()).length;
      // One signed commit adds a package and a running deployment that reaches all four tenants.
      await writeFile(
        join(repo.work, 'all.yaml'),
        yamlDocs(
          manifests('pending'),
          flow,
          catalogPackageDoc('seven-zip-24-07', '7-Zip', '24.07'),
          deploymentDoc('seven-zip-24-07', 'seven-zip-all', 'running'),
        ),
      );
      await commitAs(repo.work, ALICE, alice, 'Add and start 7-Zip 24.07');
      await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
      const waiting = await agent.reconcile();
      expect(waiting.approvals).toMatchObject({ needed: true, ok: false, tenants: 4, signers: [ALICE.email], missing: 1 });
      expect(agent.condition(waiting, 'Ready')).toMatchObject({ status: 'False', reason: 'ApprovalPending' });
      expect((await sim.writes()).slice(writes)).toEqual([]);

      // Bob approves: the package goes in, the add and start still wait for the window.
      await commitAs(repo.work, BOB, bob, 'Approve');
      await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
      const approved = await agent.reconcile();
      expect(approved.approvals).toMatchObject({ ok: true, signers: [ALICE.email, BOB.email] });
      expect((await sim.state()).packages.some((x) => x.productName === '7-Zip' && x.productVersion === '24.07')).toBe(true);
      expect((await sim.state()).deployments.filter((d) => d.version === '24.07')).toEqual([]);
    } finally {
      await agent.stop();
    }
  });

  it('a change over the revision already applied under the rule (drift healed) needs no new signatures (regression: waited for ever over an empty range)', async () => {
    const agent = await policyAgent('--drift', 'heal');
    try {
      await agent.until('the first pass', (s) => s.passes >= 1 && s.history[0]?.result === 'Succeeded');
      await writeFile(join(repo.work, 'all.yaml'), manifests('running'));
      await commitAs(repo.work, ALICE, alice, 'Start 7-Zip 24.08');
      await commitAs(repo.work, BOB, bob, 'Approve');
      await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
      expect((await agent.reconcile()).approvals).toMatchObject({ ok: true, signers: [ALICE.email, BOB.email] });
      const id = (await sim.state()).deployments[0]!.id;
      // Someone stops it in the console: the same revision, healed back to running.
      const stop = await fetch(`${sim.url}/v1/flow/deployment/${id}/stop`, { method: 'POST', headers: { 'X-API-Key': sim.key } });
      expect(stop.status).toBe(200);
      const writes = (await sim.writes()).length;
      const healed = await agent.reconcile();
      expect(healed.approvals).toMatchObject({ ok: true, missing: 0 });
      expect(healed.events.filter((e) => e.reason === 'ApprovalPending')).toEqual([]);
      expect((await sim.writes()).slice(writes)).toEqual(['POST /v1/flow/deployment/{id}/start']);
    } finally {
      await agent.stop();
    }
  });
});
