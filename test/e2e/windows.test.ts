/**
 * Change windows and freezes (docs/policy.md) through the built CLI against the simulator, whose
 * virtual clock starts at a chosen date (its `Date` header is packsync's clock). No sleeping: the
 * clock is advanced. Assertions on the simulator's journal, live state and packsync's state.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
import type { Plan } from '../../src/plan/types.js';
import { cli } from '../support/cli.js';
import { startReceiver } from '../support/receiver.js';
import { spawnCli } from '../support/spawn-cli.js';
import { catalogPackageDoc, deploymentDoc, flowDoc, PILOT_FIRST, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim | null = null;
afterEach(async () => {
  await sim?.close();
  sim = null;
});

async function setup(clockStart: string): Promise<{ sim: TestSim; env: Record<string, string>; repo: string; stateDir: string }> {
  sim = await startTestSimulator({ timeScale: 60, clockStart: Date.parse(clockStart) });
  const stateDir = await tempDir('packsync-state-');
  const repo = await tempDir('packsync-repo-');
  return { sim, env: { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir }, repo, stateDir };
}

const repoYaml = (flowExtra: string[], deploymentExtra: string[], state = 'running'): string =>
  yamlDocs(
    catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'),
    flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`, ...flowExtra]),
    deploymentDoc('seven-zip-24-08', 'seven-zip', state, deploymentExtra),
  );

/** Advances the simulator's clock to `iso` (it only moves forward). */
async function advanceTo(s: TestSim, iso: string): Promise<void> {
  const now = ((await s.admin('GET', '/_sim/clock')) as { epochMs: number }).epochMs;
  const seconds = Math.ceil((Date.parse(iso) - now) / 1000);
  if (seconds > 0) await s.advance(seconds);
}

const deploymentWrites = async (s: TestSim): Promise<string[]> => (await s.writes()).filter((w) => w.includes('deployment'));

describe('change windows', () => {
  it('outside the window the start waits (exit 0, says until when, across a DST change), and happens once the window opens', async () => {
    // Saturday 27 March 2027; Europe/Oslo moves to summer time on Sunday 28 March.
    const { sim: s, env, repo } = await setup('2027-03-27T12:00:00Z');
    const windows = ['windows:', '  timezone: Europe/Oslo', '  allow: ["Mon-Fri 08:00-16:00"]'];
    await writeFile(join(repo, 'all.yaml'), repoYaml(windows, []));

    const plan = await cli(['plan', repo, '--output', 'json'], env);
    expect(plan.code, plan.stderr).toBe(0);
    const p = JSON.parse(plan.stdout) as Plan;
    // Monday 08:00 in Oslo is 06:00 UTC after the change (it was 07:00 UTC a week earlier).
    expect(p.windows).toEqual([
      expect.objectContaining({ key: 'Deployment/seven-zip-24-08', open: false, until: '2027-03-29T06:00:00.000Z' }),
    ]);
    expect(p.objects.find((o) => o.key === 'Deployment/seven-zip-24-08')).toMatchObject({ change: 'waiting' });

    const first = await cli(['apply', '--auto-approve', repo], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('waits for window Mon 08:00 Europe/Oslo (2027-03-29)');
    expect(first.stdout).toContain('until 2027-03-29T06:00:00.000Z');
    expect(await deploymentWrites(s)).toEqual([]);
    expect((await s.state()).flows).toHaveLength(1);

    // A minute before the window (Sunday night's clock change included): still nothing.
    await advanceTo(s, '2027-03-29T05:58:00Z');
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    expect(await deploymentWrites(s)).toEqual([]);

    await advanceTo(s, '2027-03-29T06:00:30Z');
    const open = await cli(['apply', '--auto-approve', repo], env);
    expect(open.code, open.stderr).toBe(0);
    expect(await deploymentWrites(s)).toEqual(['POST /v1/flow/{id}/add-deployment']);
    expect((await s.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 1 });
  });

  it('plan --detailed-exitcode exits 2 while a closed window holds a start (regression: it said 0, "in sync", though the service did not match git)', async () => {
    const { sim: s, env, repo } = await setup('2027-03-27T12:00:00Z');
    await writeFile(join(repo, 'all.yaml'), repoYaml(['windows:', '  timezone: Europe/Oslo', '  allow: ["Mon-Fri 08:00-16:00"]'], []));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const held = await cli(['plan', repo, '--detailed-exitcode'], env);
    expect(held.code, held.stderr).toBe(2);
    expect(await deploymentWrites(s)).toEqual([]);

    await advanceTo(s, '2027-03-29T06:00:30Z');
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const done = await cli(['plan', repo, '--detailed-exitcode'], env);
    expect(done.code, done.stdout).toBe(0);
  });

  it('a saved plan made while the window was open is refused once it has closed (regression: its start went out after the window)', async () => {
    // Monday 29 March 2027, 15:40 in Oslo: the window (until 16:00) is open when the plan is made.
    const { sim: s, env, repo } = await setup('2027-03-29T13:40:00Z');
    await writeFile(join(repo, 'all.yaml'), repoYaml(['windows:', '  timezone: Europe/Oslo', '  allow: ["Mon-Fri 08:00-16:00"]'], []));
    const planFile = join(await tempDir('packsync-plan-'), 'plan.json');
    const plan = await cli(['plan', repo, '--out', planFile], env);
    expect(plan.code, plan.stderr).toBe(0);
    const saved = JSON.parse(await readFile(planFile, 'utf8')) as { plan: Plan };
    expect(saved.plan.windows).toEqual([expect.objectContaining({ key: 'Deployment/seven-zip-24-08', open: true })]);

    await advanceTo(s, '2027-03-29T14:01:00Z');
    const late = await cli(['apply', planFile], env);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(
      /STALE_PLAN: .*change window closed since the plan was made \(Deployment\/seven-zip-24-08: waits for window Tue 08:00 Europe\/Oslo/,
    );
    expect(await s.writes()).toEqual([]);
  });

  it('saved-stop-after-window-closed: a saved plan that only stops a deployment is applied after its window closed (regression: STALE_PLAN, no stop)', async () => {
    // Monday 29 March 2027, 15:40 in Oslo: the window (until 16:00) is open.
    const { sim: s, env, repo } = await setup('2027-03-29T13:40:00Z');
    const windows = ['windows:', '  timezone: Europe/Oslo', '  allow: ["Mon-Fri 08:00-16:00"]'];
    await writeFile(join(repo, 'all.yaml'), repoYaml(windows, []));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    await writeFile(join(repo, 'all.yaml'), repoYaml(windows, [], 'stopped'));
    const planFile = join(await tempDir('packsync-plan-'), 'plan.json');
    expect((await cli(['plan', repo, '--out', planFile], env)).code).toBe(0);

    await advanceTo(s, '2027-03-29T14:01:00Z');
    const before = (await s.writes()).length;
    const late = await cli(['apply', planFile], env);
    expect(late.code, late.stderr).toBe(0);
    expect((await s.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/stop']);
    expect((await s.state()).deployments[0]).toMatchObject({ status: 'Stopped' });
  });

  it('a freeze across the new year holds skip-wave, never a stop; --ignore-windows breaks glass and is recorded with who, why and the wave it moved from', async () => {
    const { sim: s, env, repo, stateDir } = await setup('2026-12-30T10:00:00Z');
    await writeFile(join(repo, 'all.yaml'), repoYaml([], []));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    expect((await s.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 1 });

    const freeze = [
      'windows:',
      '  timezone: Europe/Oslo',
      '  freeze:',
      '    - { from: 2026-12-20, to: 2027-01-03, reason: year-end freeze }',
    ];
    await writeFile(join(repo, 'all.yaml'), repoYaml(freeze, ['wave: 2']));
    const writes = (await s.writes()).length;
    const held = await cli(['apply', '--auto-approve', repo, '--output', 'json'], env);
    expect(held.code, held.stderr).toBe(0);
    const p = (JSON.parse(held.stdout) as { plan: Plan }).plan;
    // Whole days in the zone, `to` included: it ends at midnight after 3 January, Oslo time (23:00 UTC).
    expect(p.windows?.[0]).toMatchObject({ open: false, until: '2027-01-03T23:00:00.000Z' });
    expect(p.windows?.[0]?.reason).toContain('frozen: year-end freeze (2026-12-20 to 2027-01-03 Europe/Oslo)');
    expect((await s.writes()).slice(writes)).toEqual([]);

    // Break glass: moves now, recorded in the state with the actor and the reason, and notified.
    const receiver = await startReceiver();
    const notifications = join(await tempDir('packsync-notify-'), 'notifications.yaml');
    await writeFile(join(dirname(notifications), 'url'), `${receiver.url}/hook\n`);
    await writeFile(join(dirname(notifications), 'hmac'), 'a-webhook-secret-of-some-length\n');
    await writeFile(
      notifications,
      'providers:\n  - { name: ops, type: webhook, addressFile: url, secretFile: hmac }\nalerts:\n  - { provider: ops, severity: info }\n',
    );
    const glass = await spawnCli(
      [
        'apply',
        '--auto-approve',
        repo,
        '--ignore-windows',
        '--reason',
        'CVE hotfix',
        '--actor',
        'Ada <ada@example.com>',
        '--notifications',
        notifications,
      ],
      env,
    ).done;
    expect(glass.code, glass.stderr).toBe(0);
    const [sent] = await receiver.waitFor(1);
    await receiver.close();
    const event = JSON.parse(sent!.body) as { reason: string; object: { kind: string; name: string }; message: string };
    expect(event).toMatchObject({ reason: 'WindowIgnored', object: { kind: 'Deployment', name: 'seven-zip-24-08' } });
    expect(event.message).toContain('--ignore-windows by Ada <ada@example.com>, reason: CVE hotfix');
    expect((await s.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 2 });
    const inv = JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
    // The entry names the wave the rollout moved from (regression: every break-glass move logged wave 0).
    expect(inv.objects['Deployment/seven-zip-24-08']?.gateLog?.at(-1)).toMatchObject({
      action: 'ignore-windows',
      wave: 1,
      by: 'command',
      reason: expect.stringContaining('Ada <ada@example.com>: CVE hotfix') as unknown,
    });
    // --ignore-windows without a reason is refused before anything is read.
    expect((await cli(['apply', '--auto-approve', repo, '--ignore-windows'], env)).code).toBe(1);

    // Inside the freeze a stop goes through at once: the emergency brake is never held back.
    await writeFile(join(repo, 'all.yaml'), repoYaml(freeze, ['wave: 3'], 'stopped'));
    const before = (await s.writes()).length;
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    expect((await s.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/stop']);

    // After the freeze (4 January, Oslo) git's running + wave 3 go ahead again.
    await writeFile(join(repo, 'all.yaml'), repoYaml(freeze, ['wave: 3']));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    expect((await s.state()).deployments[0]).toMatchObject({ status: 'Stopped' });
    await advanceTo(s, '2027-01-03T23:00:30Z');
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    expect((await s.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 3 });
  });

  it('flow-replacement-waits-for-window: a flow replaced while the window is closed keeps the old flow and its rollout (regression: the old flow was deleted, the add held)', async () => {
    // Friday 26 March 2027, 11:00 in Oslo: inside Mon-Fri 08:00-16:00.
    const { sim: s, env, repo } = await setup('2027-03-26T10:00:00Z');
    const windows = ['windows:', '  timezone: Europe/Oslo', '  allow: ["Mon-Fri 08:00-16:00"]'];
    await writeFile(join(repo, 'all.yaml'), repoYaml(windows, []));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const [running] = (await s.state()).deployments;
    expect(running).toMatchObject({ status: 'Running' });

    // Saturday: the window is closed, and git changes a field the API can only change by replacing the flow.
    await advanceTo(s, '2027-03-27T10:00:00Z');
    await writeFile(join(repo, 'all.yaml'), repoYaml([...windows, 'flags: [radarTracking]'], []));
    const plan = await cli(['plan', repo, '--allow-replace', '--output', 'json'], env);
    expect(plan.code, plan.stderr).toBe(0);
    const p = JSON.parse(plan.stdout) as Plan;
    expect(p.objects.find((o) => o.key === 'Flow/seven-zip')).toMatchObject({ change: 'waiting', actions: [] });
    expect(p.actions).toEqual([]);
    expect(p.windows?.map((w) => [w.key, w.open, w.until])).toEqual(
      expect.arrayContaining([
        ['Flow/seven-zip', false, '2027-03-29T06:00:00.000Z'],
        ['Deployment/seven-zip-24-08', false, '2027-03-29T06:00:00.000Z'],
      ]),
    );
    const before = (await s.writes()).length;
    const held = await cli(['apply', '--auto-approve', '--allow-replace', repo], env);
    expect(held.code, held.stderr).toBe(0);
    expect((await s.writes()).slice(before)).toEqual([]);
    const live = await s.state();
    expect(live.flows.filter((f) => !f.deleted)).toHaveLength(1);
    expect(live.deployments).toEqual([expect.objectContaining({ id: running!.id, status: 'Running' })]);

    // Monday 08:00 Oslo: the replacement goes through whole, the deployment on the new flow before the old flow's delete.
    await advanceTo(s, '2027-03-29T06:00:30Z');
    expect((await cli(['apply', '--auto-approve', '--allow-replace', repo], env)).code).toBe(0);
    expect((await s.writes()).slice(before)).toEqual(['POST /v1/flow/create', 'POST /v1/flow/{id}/add-deployment', 'DELETE /v1/flow/{id}']);
    const after = await s.state();
    const flows = after.flows.filter((f) => !f.deleted);
    expect(flows).toHaveLength(1);
    expect(after.deployments.filter((d) => d.flowId === flows[0]!.id)).toEqual([expect.objectContaining({ status: 'Running' })]);
  });

  it('validation names FILE:LINE:COL for an unknown zone, a malformed range and a freeze that ends before it starts', async () => {
    const dir = await tempDir('packsync-windows-');
    const bad = [
      'windows:',
      '  timezone: Europe/Olso',
      '  allow: ["Mon 09:00-09:00"]',
      '  freeze:',
      '    - { from: 2027-01-03, to: 2026-12-20 }',
    ];
    await writeFile(join(dir, 'all.yaml'), repoYaml(bad, []));
    const r = await cli(['validate', dir], {});
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/all\.yaml:\d+:\d+: .*"Europe\/Olso" is not an IANA time zone/);
    expect(r.stdout + r.stderr).toMatch(/all\.yaml:\d+:\d+: .*"Mon 09:00-09:00" opens and closes at the same minute/);
    expect(r.stdout + r.stderr).toMatch(/all\.yaml:\d+:\d+: .*freeze\[0\] ends \(2026-12-20\) before it starts \(2027-01-03\)/);

    // An empty allow list would allow no hour ever (regression: it validated and held every start for good).
    await writeFile(join(dir, 'all.yaml'), repoYaml(['windows:', '  timezone: Europe/Oslo', '  allow: []'], []));
    const empty = await cli(['validate', dir], {});
    expect(empty.code).toBe(1);
    expect(empty.stdout + empty.stderr).toMatch(/all\.yaml:\d+:\d+: .*allow/);
  });

  it('promote outside the window is refused (WINDOW_CLOSED, no call); promote --ignore-windows --reason skips now and records who and why', async () => {
    const { sim: s, env, repo, stateDir } = await setup('2026-11-28T12:00:00Z');
    await writeFile(join(repo, 'all.yaml'), repoYaml([], []));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    // The window arrives with a later commit: the running deployment records it in the state.
    const windows = ['windows:', '  timezone: Europe/Oslo', '  allow: ["Mon-Fri 09:00-17:00"]'];
    await writeFile(join(repo, 'all.yaml'), repoYaml(windows, []));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const key = 'Deployment/seven-zip-24-08';
    const writes = (await s.writes()).length;

    const refused = await spawnCli(['promote', key, '--reason', 'looks fine'], env).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('WINDOW_CLOSED');
    expect(refused.stderr).toContain('waits for window Mon 09:00 Europe/Oslo (2026-11-30)');
    expect((await s.writes()).slice(writes)).toEqual([]);

    const glass = await spawnCli(
      ['promote', key, '--reason', 'customer escalation', '--ignore-windows', '--actor', 'Bo <bo@example.com>'],
      env,
    ).done;
    expect(glass.code, glass.stderr).toBe(0);
    expect((await s.writes()).slice(writes)).toEqual(['POST /v1/flow/deployment/{id}/skip-wave']);
    const inv = JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
    expect(inv.objects[key]?.gateLog?.map((e) => e.action).slice(-2)).toEqual(['promote', 'ignore-windows']);
    expect(inv.objects[key]?.gateLog?.at(-1)?.reason).toContain('Bo <bo@example.com>: customer escalation');
    // Regression: the report's history kept only the break glass, not the promote it let through.
    const rollout = inv.history?.rollouts.find((x) => x.deploymentId === inv.objects[key]?.id);
    expect(rollout?.gates.map((g) => g.action).slice(-2)).toEqual(['promote', 'ignore-windows']);
  });
});
