/**
 * Plan-time checks through the CLI against the real simulator (issue "safe apply", review rows 10,
 * 20, 21, 22): mistakes that used to pass `plan` and fail in the middle of `apply` now fail the
 * plan, pointing at FILE:LINE:COL of the field.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { spawnCli } from '../support/spawn-cli.js';
import { writeRepo } from '../support/manifests.js';
import { editFile, tempDir } from '../support/repo.js';
import { normalisePath, startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;

beforeEach(async () => {
  sim = await startTestSimulator();
  env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
});
afterEach(async () => {
  await sim.close();
});

describe('plan checks against the simulator', () => {
  it('an unknown catalog version and an unknown tenant fail plan with FILE:LINE:COL of the field, before any write', async () => {
    const repo = await writeRepo({ withCustom: true });
    await editFile(join(repo, 'packages.yaml'), 'version: "24.08"', 'version: "24.09"');
    await editFile(join(repo, 'custom.yaml'), 'tenant: fabrikam.onmicrosoft.com', 'tenant: fabrikan.onmicrosoft.com');
    const r = await cli(['plan', '--detailed-exitcode', repo], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('packages.yaml:8:14: REF_UNKNOWN: 7-Zip has no version 24.09; available: 24.08, 24.07, 23.01');
    expect(r.stdout).toMatch(
      /custom\.yaml:18:11: REF_UNKNOWN: unknown tenant "fabrikan\.onmicrosoft\.com"; did you mean "fabrikam\.onmicrosoft\.com" \(Fabrikam, [0-9a-f-]{36}\)\?/,
    );
    // The versions were read once per catalog app the packages name (7-Zip, PowerShell 7).
    const appReads = (await sim.journal()).filter((e) => e.method === 'GET' && normalisePath(e.path) === '/v1/app/{id}');
    expect(appReads).toHaveLength(2);
    expect(await sim.writes()).toEqual([]);
  });

  it('an unknown name with nothing close lists every candidate of a short list (tenants, templates) and counts a long one (catalog apps) (regression: no candidates)', async () => {
    const repo = await writeRepo({ withCustom: true });
    await editFile(join(repo, 'custom.yaml'), 'tenant: fabrikam.onmicrosoft.com', 'tenant: Wingtip');
    await editFile(join(repo, 'flows.yaml'), 'app: PowerShell 7', 'app: Totally Unknown App\n  scriptTemplate: Xyz');
    const r = await cli(['plan', repo], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /REF_UNKNOWN: unknown tenant "Wingtip"; candidates: "contoso\.onmicrosoft\.com" \(Contoso, [0-9a-f-]{36}\), .*"tailspintoys\.onmicrosoft\.com"/,
    );
    expect(r.stdout).toMatch(/REF_UNKNOWN: unknown catalog app "Totally Unknown App"; none of the \d+ is close/);
    expect(await sim.writes()).toEqual([]);
  });

  it('a converged repository reads no catalog app; a version edited in place is checked again, and an unknown one fails the plan (regression: one app read per followed app on every pass)', async () => {
    const repo = await writeRepo();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const appReads = async (): Promise<number> =>
      (await sim.journal()).filter((e) => e.method === 'GET' && normalisePath(e.path) === '/v1/app/{id}').length;
    const before = await appReads();
    const noop = await cli(['plan', '--detailed-exitcode', repo], env);
    expect(noop.code, noop.stdout).toBe(0);
    expect(await appReads()).toBe(before);

    await editFile(join(repo, 'packages.yaml'), 'version: "24.08"', 'version: "24.09"');
    const edited = await cli(['plan', '--detailed-exitcode', repo], env);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain('packages.yaml:8:14: REF_UNKNOWN: 7-Zip has no version 24.09; available: 24.08, 24.07, 23.01');
    expect(await appReads()).toBe(before + 1);
  });

  it('track-matching-no-version-passes-plan: a version policy whose track matches no version of the app fails plan at the track, naming the versions there are; a track the pinned version is on reads nothing (regression: only `update` said so)', async () => {
    const repo = await writeRepo();
    const policy = (track: string): string => `version: "24.08"\n    update:\n      track: "${track}"`;
    await editFile(join(repo, 'packages.yaml'), 'version: "24.08"', policy('24.x'));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const appReads = async (): Promise<number> =>
      (await sim.journal()).filter((e) => e.method === 'GET' && normalisePath(e.path) === '/v1/app/{id}').length;
    const before = await appReads();
    const onTrack = await cli(['plan', '--detailed-exitcode', repo], env);
    expect(onTrack.code, onTrack.stdout).toBe(0);
    expect(await appReads()).toBe(before);
    const writes = (await sim.writes()).length;

    await editFile(join(repo, 'packages.yaml'), 'track: "24.x"', 'track: "25.x"');
    for (const args of [
      ['plan', '--detailed-exitcode', repo],
      ['apply', '--auto-approve', repo],
    ]) {
      const r = await cli(args, env);
      expect(r.code, args[0]).toBe(1);
      expect(r.stdout, args[0]).toContain(
        'packages.yaml:10:14: REF_UNKNOWN: track "25.x" matches no version of 7-Zip; there are 24.08, 24.07, 23.01',
      );
    }
    expect((await sim.writes()).length).toBe(writes);
  });

  it("a wave gate beyond the live flow's waves fails plan at spec.wave; a version already live is recorded, not replaced", async () => {
    const repo = await writeRepo({ wave: 2 });
    const first = await cli(['apply', '--auto-approve', repo], env);
    expect(first.code).toBe(0);
    const writes = (await sim.writes()).length;

    await editFile(join(repo, 'deployments.yaml'), 'wave: 2', 'wave: 99');
    const gate = await cli(['plan', '--detailed-exitcode', repo], env);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(
      /deployments\.yaml:9:9: WAVE_OUT_OF_RANGE: wave 99 is beyond the last wave of flow "seven-zip", which has \d+ waves/,
    );

    // Writing down the version the live deployment already has (review row 22).
    await editFile(join(repo, 'deployments.yaml'), 'wave: 99', 'wave: 2\n  version: "24.08"');
    const plan = await cli(['plan', '--detailed-exitcode', repo], env);
    expect(plan.stdout).not.toMatch(/requires replacement/);
    expect(plan.stdout).toContain('version "24.08" is already the live deployment\'s version: recorded in the state, no API call');
    const apply = await cli(['apply', '--auto-approve', repo], env);
    expect(apply.code).toBe(0);
    expect((await sim.writes()).length).toBe(writes);
    const again = await cli(['plan', '--detailed-exitcode', repo], env);
    expect(again.code).toBe(0);
  });

  it('a package that failed processing says what the service said (errorDetails)', async () => {
    const repo = await writeRepo();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const zip = (await sim.state()).packages.find((p) => p.productName === '7-Zip');
    if (!zip) throw new Error('7-Zip was not imported');
    await sim.admin('POST', `/_sim/packages/${zip.id}/state`, { state: 'Error', errorDetails: 'MSI analysis failed: not a valid MSI' });
    const r = await cli(['plan', '--detailed-exitcode', repo], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `PACKAGE_FAILED: live package ${zip.id} is in state Error: MSI analysis failed: not a valid MSI; change the spec to create a new one`,
    );
  });

  it("help-not-redacted: a short or default key in the environment leaves help and the simulator's own key alone (regression: --api-[REDACTED]-file)", async () => {
    // The built CLI as a process: the output net is the process's standard output.
    const help = await spawnCli(['plan', '--help'], { ...env, PACKSYNC_API_KEY: 'key' }).done;
    expect(help.stdout).toContain('--api-key-file');
    const simHelp = await spawnCli(['simulator', '--help'], { ...env, PACKSYNC_API_KEY: 'sim-key' }).done;
    expect(simHelp.stdout).toContain('(default: sim-key)');
    // A key the command used is taken out of all it prints: here a manifest names the key as an app.
    const repo = await writeRepo();
    await editFile(join(repo, 'flows.yaml'), 'app: 7-Zip', `app: ${sim.key}`);
    const used = await spawnCli(['plan', repo], env).done;
    expect(used.code).toBe(1);
    expect(used.stdout + used.stderr).not.toContain(sim.key);
    expect(used.stdout).toContain('[REDACTED]');
  });

  it('key-with-json-escapes-shown-in-json: a key holding `"` and `\\` is taken out of `-o json` whether the service echoes it or a manifest names it (regression: its escaped form went through)', async () => {
    const key = 'sec"ret\\key-4242';
    const quoted = JSON.stringify(key).slice(1, -1);
    const own = await startTestSimulator({ key });
    try {
      const keyEnv = { ...env, PACKSYNC_API_URL: own.url, PACKSYNC_API_KEY: key };
      const repo = await writeRepo();
      expect((await cli(['apply', '--auto-approve', repo], keyEnv)).code).toBe(0);
      const zip = (await own.state()).packages.find((p) => p.productName === '7-Zip')!;
      // The service echoes the key in a 200 answer: its JSON body carries the escaped form.
      await own.admin('POST', `/_sim/packages/${zip.id}/state`, { state: 'Error', errorDetails: `rejected for key ${key} at import` });
      const echoed = await spawnCli(['plan', repo, '--output', 'json'], keyEnv).done;
      expect(echoed.code).toBe(1);
      for (const form of [key, quoted]) expect(echoed.stdout + echoed.stderr).not.toContain(form);
      expect(echoed.stdout).toContain('rejected for key [REDACTED] at import');
      // A manifest names the key (no service text involved): the process's output net takes out its JSON form.
      await editFile(join(repo, 'flows.yaml'), 'app: 7-Zip', `app: '${key}'`);
      const named = await spawnCli(['plan', repo, '--output', 'json'], keyEnv).done;
      expect(named.code).toBe(1);
      for (const form of [key, quoted]) expect(named.stdout + named.stderr).not.toContain(form);
      expect(named.stdout).toContain('[REDACTED]');
    } finally {
      await own.close();
    }
  });

  it('key-echoed-in-200-answer: a service text that echoes the key (errorDetails of a 200 answer) never shows it, with the key from --api-key-file too in plan text, JSON and markdown and apply (regression: they printed it; /status shows the same messages)', async () => {
    const repo = await writeRepo();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const zip = (await sim.state()).packages.find((p) => p.productName === '7-Zip')!;
    await sim.admin('POST', `/_sim/packages/${zip.id}/state`, { state: 'Error', errorDetails: `rejected for key ${sim.key} at import` });
    const keyFile = join(await tempDir('packsync-key-'), 'key');
    await writeFile(keyFile, `${sim.key}\n`);
    const { PACKSYNC_API_KEY: _key, ...fromFile } = env;
    for (const [args, e] of [
      [['plan', repo], env],
      [['apply', '--auto-approve', repo], env],
      [['plan', repo, '--output', 'json'], env],
      [['plan', repo, '--api-key-file', keyFile], fromFile],
      [['plan', repo, '--output', 'markdown', '--api-key-file', keyFile], fromFile],
    ] as const) {
      const r = await cli([...args], e);
      expect(r.code, args.join(' ')).toBe(1);
      expect(`${r.stdout}${r.stderr}`, args.join(' ')).not.toContain(sim.key);
      expect(r.stdout, args.join(' ')).toMatch(/rejected for key \\?\[REDACTED\\?\] at import/);
    }
  });
});
