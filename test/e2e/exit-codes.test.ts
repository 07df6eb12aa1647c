/**
 * The exit-code contract of docs/reconcile.md, one test per path, through the built CLI as a real process
 * (`node dist/src/cli/main.js`, standard input not a terminal) against the real simulator: 0
 * success; 1 for every error (usage, invalid manifest, plan error, conflict, object error, blocked
 * replacement, failed action, refused approval, lost state under `run --once`); 2 only for
 * `plan --detailed-exitcode` with changes or reported drift and no error; 130 on Ctrl-C. Outcomes
 * are read from the simulator's journal, not from what the CLI says about itself.
 */
import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { flowsYaml, writeRepo } from '../support/manifests.js';
import { until } from '../support/poll.js';
import { copyExamples, editFile, tempDir } from '../support/repo.js';
import { countBy, startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';
import { startAgent } from '../support/agent-process.js';
import { CLI_BIN, spawnCli } from '../support/spawn-cli.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
useSim((s) => ({ sim, env, stateDir } = s));

type Done = Awaited<ReturnType<typeof spawnCli>['done']>;

function run(args: string[], e: Record<string, string> = env): Promise<Done> {
  return spawnCli(args, e).done;
}

/** Every write request the simulator saw, answered or not: "zero writes" means none was even tried. */
async function writeCount(): Promise<number> {
  return (await sim.journal(true)).length;
}

/** Converges `repo` with a state directory of its own; returns that directory. */
async function converge(repo: string, dir = stateDir): Promise<string> {
  const r = await run(['apply', repo, '--auto-approve', '--state-dir', dir]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return dir;
}

describe('usage errors exit 1, never 2 (2 means "changes")', () => {
  it('a bad --output choice exits 1 before any call', async () => {
    const r = await run(['plan', await writeRepo(), '--output', 'yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--output.*yaml.*invalid/);
    expect(await sim.journal()).toEqual([]);
  });

  it('an unknown flag exits 1 before any call', async () => {
    const r = await run(['apply', await writeRepo(), '--auto-aprove']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown option '--auto-aprove'/);
    expect(await sim.journal()).toEqual([]);
  });

  it('no service URL exits 1 and says how to give one', async () => {
    const r = await run(['plan', await writeRepo(), '--detailed-exitcode'], { PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no service URL: pass --api-url or set PACKSYNC_API_URL/);
  });

  it('an API key with a line break exits 1 naming PACKSYNC_API_KEY, never the key (regression: exit 13 and no output)', async () => {
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const r = await run([...command, await writeRepo()], { ...env, PACKSYNC_API_KEY: `${sim.key}\nSECRET-TAIL` });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/PACKSYNC_API_KEY must hold the key on one line/);
      expect(r.stdout + r.stderr).not.toContain('SECRET-TAIL');
    }
    expect(await sim.journal()).toEqual([]);
  });

  it('an invalid --schedule exits 1 before any call, also with --once where it would not fire (regression: accepted)', async () => {
    const r = await run(['run', '--source', await writeRepo(), '--once', '--schedule', 'not a cron']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--schedule "not a cron" is not a valid cron expression/);
    expect(await sim.journal()).toEqual([]);
  });

  it('a non-numeric --api-timeout exits 1 before any call', async () => {
    const r = await run(['plan', await writeRepo(), '--detailed-exitcode', '--api-timeout', 'abc']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--api-timeout must be a whole number/);
    expect(await sim.journal()).toEqual([]);
  });
});

describe('errors in the repository or the plan exit 1 with zero writes', () => {
  it('plan of an invalid repository exits 1 (also with --detailed-exitcode) and makes no call', async () => {
    const repo = await writeRepo();
    await editFile(join(repo, 'deployments.yaml'), 'state: running', 'state: runing');
    const r = await run(['plan', repo, '--detailed-exitcode']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/deployments\.yaml:\d+:\d+: .*running/);
    // A plan applies nothing in any case (regression: it said "nothing was applied").
    expect(r.stderr).toMatch(/^1 error: nothing was planned\.$/m);
    expect(await sim.journal()).toEqual([]);
  });

  it('apply --auto-approve of an invalid repository exits 1 and makes no call', async () => {
    const repo = await writeRepo();
    await editFile(join(repo, 'deployments.yaml'), 'state: running', 'state: runing');
    const r = await run(['apply', repo, '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/deployments\.yaml:\d+:\d+: .*running/);
    // JSON output carries the problems (regression: apply -o json printed an empty document).
    const json = await run(['apply', repo, '--auto-approve', '--output', 'json']);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as { valid: boolean; problems: { file: string; line: number; rule: string }[] };
    expect(doc.valid).toBe(false);
    expect(doc.problems.map((p) => `${p.file}:${p.line}`)).toEqual([expect.stringMatching(/deployments\.yaml:\d+$/)]);
    expect(await sim.journal()).toEqual([]);
  });

  it('json-markdown-error-document: plan and apply --output json|markdown print the error as a document when the service refuses them, never an empty stdout', async () => {
    // Before, a plan whose first read failed (a wrong key, the service down) printed nothing on
    // stdout, and a CI step parsing it failed on empty input instead of reading the error.
    const repo = await writeRepo();
    const wrong = { ...env, PACKSYNC_API_KEY: 'not-the-key-0123456789' };
    for (const args of [
      ['plan', repo, '--output', 'json'],
      ['apply', repo, '--auto-approve', '--output', 'json'],
    ]) {
      const r = await run(args, wrong);
      expect(r.code, args.join(' ')).toBe(1);
      const doc = JSON.parse(r.stdout) as { error: { code: string; message: string } };
      expect(doc.error.code).toBe('API_UNAUTHORIZED');
      expect(r.stdout).not.toContain('not-the-key-0123456789');
    }
    const md = await run(['plan', repo, '--output', 'markdown'], wrong);
    expect(md.code).toBe(1);
    expect(md.stdout).toMatch(/^### packsync plan: failed\n\n`API_UNAUTHORIZED`: /);
    expect(await writeCount()).toBe(0);
  });

  it('error-document-bad-flag: plan and apply --output json|markdown print the document for a refused flag value or an unknown option too (regression: empty stdout)', async () => {
    const repo = await writeRepo();
    for (const args of [
      ['plan', repo, '-o', 'json', '--api-timeout', 'abc'],
      ['plan', repo, '--output=json', '--bogus'],
      ['apply', repo, '--auto-approve', '-ojson', '--concurrency', '0'],
    ]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code, args.join(' ')).toBe('USAGE');
    }
    const md = await run(['plan', repo, '--output', 'markdown', '--api-timeout', 'abc']);
    expect(md.code).toBe(1);
    expect(md.stdout).toMatch(/^### packsync plan: failed\n\n`USAGE`: .*--api-timeout/);
    expect((await run(['plan', repo, '--api-timeout', 'abc'])).stdout).toBe('');
    expect(await writeCount()).toBe(0);
  });

  it('prune with an empty desired set is a plan error: plan and apply exit 1, zero writes', async () => {
    // Every manifest of the applied repository removed: everything in its prune scope would go.
    const empty = await writeRepo();
    await converge(empty);
    for (const f of await readdir(empty)) if (f.endsWith('.yaml')) await rm(join(empty, f));
    const before = await writeCount();
    const plan = await run(['plan', empty, '--prune', '--detailed-exitcode']);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toMatch(/refusing to prune: the desired set is empty.*--prune-all/);
    const apply = await run(['apply', empty, '--prune', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(await writeCount()).toBe(before);
    expect((await sim.state()).flows.filter((f) => !f.deleted)).toHaveLength(2);
  });

  it('a fresh state directory against a converged account is a conflict: plan and apply exit 1, zero writes, --adopt named', async () => {
    const repo = await writeRepo();
    await converge(repo, await tempDir('packsync-state-other-'));
    const before = await writeCount();
    const plan = await run(['plan', repo, '--detailed-exitcode']);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toMatch(/--adopt/);
    const apply = await run(['apply', repo, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toMatch(/state is empty.*--adopt/);
    expect(await writeCount()).toBe(before);
  });

  it('run --once with a lost state exits 1 and writes nothing', async () => {
    const repo = await writeRepo();
    await converge(repo, await tempDir('packsync-state-other-'));
    const before = await writeCount();
    const r = await run(['run', '--source', repo, '--once', '--state-dir', await tempDir('packsync-state-lost-')]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/"result":"Failed".*--adopt/);
    expect(await writeCount()).toBe(before);
  });

  it('an object error (unknown catalog app) makes plan --detailed-exitcode exit 1, not 0, and the JSON plan carries it', async () => {
    const repo = await writeRepo();
    await editFile(join(repo, 'packages.yaml'), '    app: 7-Zip', '    app: 7zip');
    const text = await run(['plan', repo, '--detailed-exitcode']);
    expect(text.stdout).toMatch(/REF_UNKNOWN: unknown catalog app "7zip"/);
    expect(text.code).toBe(1);
    const json = await run(['plan', repo, '--detailed-exitcode', '--output', 'json']);
    expect(json.code).toBe(1);
    const plan = JSON.parse(json.stdout) as { objects: { key: string; change: string; error?: { code: string } }[] };
    expect(plan.objects.find((o) => o.key === 'Package/seven-zip-24-08')).toMatchObject({
      change: 'error',
      error: { code: 'REF_UNKNOWN' },
    });
    expect(await writeCount()).toBe(0);
  });

  it('a pending replacement without --allow-replace: plan and apply exit 1, zero writes', async () => {
    const repo = await writeRepo();
    await converge(repo);
    const before = await writeCount();
    await writeFile(
      join(repo, 'flows.yaml'),
      flowsYaml().replace('flags: [startNewVersionsAutomatically, radarTracking]', 'flags: [radarTracking]'),
    );
    const plan = await run(['plan', repo, '--detailed-exitcode']);
    expect(plan.stdout).toMatch(/Flow\/seven-zip requires replacement/);
    expect(plan.code).toBe(1);
    const apply = await run(['apply', repo, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(/--allow-replace/);
    expect(await writeCount()).toBe(before);
  });

  it('a failed action makes apply exit 1 while independent objects still converge', async () => {
    const repo = await writeRepo();
    // The small fleet's Tailspin Toys has not granted admin consent: its upload task ends in Error.
    await writeFile(
      join(repo, 'uploads.yaml'),
      'apiVersion: packsync.dev/v1\nkind: TenantUpload\nmetadata:\n  name: pwsh-tailspin\nspec:\n  tenant: tailspintoys.onmicrosoft.com\n  package: pwsh-7-4-6\n',
    );
    const r = await run(['apply', repo, '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ TenantUpload\/pwsh-tailspin: .*admin consent/);
    expect(countBy(await sim.writes())).toMatchObject({ 'POST /v1/flow/create': 2, 'POST /v1/flow/{id}/add-deployment': 2 });
  });
});

describe('approval without a terminal', () => {
  it('apply without --auto-approve exits 1 after showing the plan, with zero writes', async () => {
    const r = await run(['apply', await writeRepo()]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Plan: 6 to create/);
    expect(r.stderr).toMatch(/standard input is not a terminal.*--auto-approve.*Nothing was changed/);
    expect(await writeCount()).toBe(0);
  });
});

describe('plan --detailed-exitcode', () => {
  it('exits 2 with changes and 0 once converged', async () => {
    const repo = await writeRepo();
    expect((await run(['plan', repo, '--detailed-exitcode'])).code).toBe(2);
    expect((await run(['plan', repo])).code).toBe(0);
    await converge(repo);
    const after = await run(['plan', repo, '--detailed-exitcode']);
    expect(after.stdout).toMatch(/Plan: 0 to create, 0 to change, 0 to delete, 6 unchanged\./);
    expect(after.code).toBe(0);
  });

  it('exits 2 on drift reported with --drift report and no error, and writes nothing', async () => {
    const repo = await writeRepo();
    await converge(repo);
    const running = (await sim.state()).deployments.find((d) => d.status === 'Running');
    expect(running).toBeDefined();
    // A human stops the deployment through the public API, as the web console would.
    await sim.admin('POST', `/v1/flow/deployment/${running!.id}/stop`);
    const before = await writeCount();
    const r = await run(['plan', repo, '--drift', 'report', '--detailed-exitcode']);
    expect(r.stdout).toMatch(/Deployment\/seven-zip-24-08 drifted/);
    expect(r.code).toBe(2);
    const json = await run(['plan', repo, '--drift', 'report', '--detailed-exitcode', '--output', 'json']);
    expect(json.code).toBe(2);
    expect((JSON.parse(json.stdout) as { errors: string[] }).errors).toEqual([]);
    expect(await writeCount()).toBe(before);
  });
});

describe('Ctrl-C', () => {
  it('SIGINT while apply waits on a package exits 130 with one line naming it, and the next apply resumes it', async () => {
    // Real time: catalog processing takes ~32 real seconds, so the apply is surely waiting. The
    // file's own simulator is closed by its hook; this one when the test ends.
    sim = await startTestSimulator({ timeScale: 1 });
    onTestFinished(() => sim.close());
    env = { ...env, PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key };
    const repo = await writeRepo();
    const p = spawnCli(['apply', repo, '--auto-approve'], env);
    let stdout = '';
    p.child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    // Both imports answered: the waits that depend on them are in flight.
    await until('both imports', () => /✓ Package\/seven-zip-24-08: import/.test(stdout) && /✓ Package\/pwsh-7-4-6: import/.test(stdout));
    p.child.kill('SIGINT');
    const end = await p.done;
    expect(end.code).toBe(130);
    const lines = end.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Interrupted while .*Package\/seven-zip-24-08: wait for processing.*; the next apply resumes it\.$/);
    // Cancelled waits are not failures: nothing on stdout calls them that.
    expect(end.stdout).not.toMatch(/ABORTED|finished with failures/);
    const interrupted = countBy(await sim.writes());
    expect(interrupted['POST /v1/app/import/{id}']).toBe(2);
    expect(interrupted['POST /v1/flow/{id}/add-deployment']).toBeUndefined(); // waits on the packages

    await sim.advance(120);
    const next = await run(['apply', repo, '--auto-approve']);
    expect(next.code, next.stdout + next.stderr).toBe(0);
    const writes = countBy(await sim.writes());
    expect(writes['POST /v1/app/import/{id}']).toBe(2); // resumed, not imported again
    expect(writes['POST /v1/flow/create']).toBe(2); // flows made before the interrupt are not made twice
    expect(writes['POST /v1/flow/{id}/add-deployment']).toBe(2);
    expect((await sim.state()).packages.filter((p2) => p2.productName === '7-Zip' && p2.productVersion === '24.08')).toHaveLength(1);
  });
});

describe('Ctrl-C in a command without its own handler', () => {
  it('plan, export and run --once exit 130 with one line saying what stopped (regression: exit 130 and no line)', async () => {
    const repo = await writeRepo();
    const cases: [string[], RegExp][] = [
      [['plan', repo], /^Interrupted: packsync plan stopped before it finished; it had changed nothing, so run it again\.$/],
      [
        ['export', '--out', join(await tempDir('packsync-export-'), 'out')],
        /^Interrupted: packsync export stopped before it finished; run it again to finish/,
      ],
      [['run', '--source', repo, '--once'], /^Interrupted: the pass stopped; the next run resumes it from the state\.$/],
    ];
    for (const [args, line] of cases) {
      await sim.admin('PUT', '/_sim/faults', 'latency=3000ms');
      const p = spawnCli(args, env);
      await until('a call on the wire', async () => (await sim.journalCount()) > 0);
      p.child.kill('SIGINT');
      const end = await p.done;
      expect(end.code, `${args[0]}: ${end.stderr}`).toBe(130);
      const lines = end.stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'));
      expect(lines, args[0]).toHaveLength(1);
      expect(lines[0]).toMatch(line);
      await sim.admin('POST', '/_sim/reset');
    }
  });

  it('sigterm-silent: plan stopped by SIGTERM (a cancelled CI job) or SIGHUP exits 143 or 129 with one line naming it (regression: nothing on stderr)', async () => {
    const repo = await writeRepo();
    for (const [signal, code] of [
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ] as const) {
      await sim.admin('PUT', '/_sim/faults', 'latency=3000ms');
      const p = spawnCli(['plan', repo], env);
      await until('a call on the wire', async () => (await sim.journalCount()) > 0);
      p.child.kill(signal);
      const end = await p.done;
      expect(end.code, end.stderr).toBe(code);
      const lines = end.stderr.split('\n').filter((l) => l.trim() !== '');
      expect(lines).toEqual([`Stopped by ${signal}: packsync plan stopped before it finished; it had changed nothing, so run it again.`]);
      await sim.admin('POST', '/_sim/reset');
    }
  });
});

describe('stopping the agent', () => {
  it('Ctrl-C (SIGINT) stops run with exit 130 and one line; SIGTERM (an orchestrator) with exit 0 (regression: SIGINT exited 0)', async () => {
    const repo = await writeRepo();
    const interrupted = await startAgent(['--source', repo, '--interval', '1h'], env, await tempDir('packsync-secret-'));
    await interrupted.until('the first pass', (x) => x.passes >= 1);
    interrupted.spawned.child.kill('SIGINT');
    const end = await interrupted.spawned.done;
    expect(end.code, end.stderr).toBe(130);
    expect(end.stderr).toMatch(/^Interrupted: the agent stopped after the calls in flight; the next run resumes from the state\.$/m);

    const stopped = await startAgent(['--source', repo, '--interval', '1h'], env, await tempDir('packsync-secret-'));
    await stopped.until('the first pass', (x) => x.passes >= 1);
    expect(await stopped.stop()).toBe(0);
    expect((await stopped.spawned.done).stderr).not.toMatch(/Interrupted/);
  });
});

/**
 * The README's CI excerpt, executed step by step as GitHub Actions runs it (`bash -e -o pipefail`,
 * the step's `env:` merged in) in a checkout holding `manifests/`. `npx packsync` resolves to the
 * built CLI through a stand-in `npx` on PATH; the step env's values point at the simulator.
 */
describe('README CI snippet', () => {
  interface Step {
    run: string;
    if?: string;
    env?: Record<string, string>;
  }

  async function snippet(): Promise<Step[]> {
    const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const block = /# \.github\/workflows\/packsync\.yml[^\n]*\n([\s\S]*?)```/.exec(readme);
    expect(block, 'README has the CI excerpt').not.toBeNull();
    // A job: `env` for every step (the API and the remote state), then `steps`.
    const job = parse(block![1]!) as { env?: Record<string, string>; steps: Step[] };
    return job.steps.map((st) => ({ ...st, env: { ...job.env, ...st.env } }));
  }

  async function checkout(): Promise<{ dir: string; path: string }> {
    const dir = await tempDir('packsync-ci-');
    const bin = join(dir, '.bin');
    await mkdir(bin);
    // `npx packsync ARGS` → the built CLI; anything else through npx would be a README bug.
    await writeFile(
      join(bin, 'npx'),
      `#!/bin/sh\n[ "$1" = packsync ] || { echo "unexpected npx $1" >&2; exit 99; }\nshift\nexec "${process.execPath}" "${CLI_BIN}" "$@"\n`,
    );
    await chmod(join(bin, 'npx'), 0o755);
    await cp(await copyExamples(), join(dir, 'manifests'), { recursive: true });
    return { dir, path: `${bin}:${process.env.PATH ?? ''}` };
  }

  function step(s: Step, cwd: string, path: string, withApiEnv: boolean): Promise<number | null> {
    // The state the snippet keeps in Azure Blob Storage is a local directory here (remote state
    // itself is tested against Azurite in remote-state.test.ts); the API is the simulator.
    const stepEnv: Record<string, string> = { PACKSYNC_STATE_DIR: join(cwd, '.state') };
    for (const k of Object.keys(s.env ?? {})) {
      if (k === 'PACKSYNC_STATE_URL' || k === 'AZURE_STORAGE_CONNECTION_STRING') continue;
      if (!withApiEnv) continue;
      if (k === 'PACKSYNC_API_URL') stepEnv[k] = sim.url;
      else if (k === 'PACKSYNC_API_KEY') stepEnv[k] = sim.key;
      else stepEnv[k] = s.env![k]!;
    }
    return new Promise((resolve) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', s.run], {
        cwd,
        env: { PATH: path, ...stepEnv },
        stdio: 'ignore',
      });
      child.on('close', (code) => resolve(code));
    });
  }

  it('passes as written with the API env: validate, plan (exit 2 is success) into plan.md, apply converges, plan again is clean', async () => {
    const steps = await snippet();
    expect(steps.map((s) => s.run.split(' ').slice(0, 3).join(' '))).toEqual([
      'npx packsync validate',
      'npx packsync plan',
      'npx packsync apply',
    ]);
    for (const s of steps.slice(1))
      expect(Object.keys(s.env ?? {}).sort(), s.run).toEqual([
        'AZURE_STORAGE_CONNECTION_STRING',
        'PACKSYNC_API_KEY',
        'PACKSYNC_API_URL',
        'PACKSYNC_STATE_URL',
      ]);
    expect(steps[2]!.run).toMatch(/--auto-approve/);
    const { dir, path } = await checkout();
    expect(await step(steps[0]!, dir, path, true)).toBe(0);
    expect(await step(steps[1]!, dir, path, true)).toBe(0);
    expect(await readFile(join(dir, 'plan.md'), 'utf8')).toMatch(/23 to create/); // with examples/baselines
    expect(await writeCount()).toBe(0);
    expect(await step(steps[2]!, dir, path, true)).toBe(0);
    expect(countBy(await sim.writes())['POST /v1/flow/create']).toBe(8);
    const before = await writeCount();
    expect(await step(steps[1]!, dir, path, true)).toBe(0);
    expect(await readFile(join(dir, 'plan.md'), 'utf8')).toMatch(/0 to create/);
    expect(await step(steps[2]!, dir, path, true)).toBe(0);
    expect(await writeCount()).toBe(before);
  });

  it('fails the plan and apply steps without the API env, and the plan step on an object error', async () => {
    const steps = await snippet();
    const { dir, path } = await checkout();
    expect(await step(steps[0]!, dir, path, false)).toBe(0);
    expect(await step(steps[1]!, dir, path, false)).not.toBe(0);
    expect(await step(steps[2]!, dir, path, false)).not.toBe(0);
    await editFile(join(dir, 'manifests/packages/seven-zip.yaml'), '    app: 7-Zip', '    app: 7zip');
    expect(await step(steps[0]!, dir, path, true)).toBe(0); // valid YAML; the catalog is only known live
    expect(await step(steps[1]!, dir, path, true)).not.toBe(0);
    expect(await sim.journal()).not.toEqual([]); // the plan did reach the service: it failed on the error, not on setup
    expect(await writeCount()).toBe(0);
  });
});
