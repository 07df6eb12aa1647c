/**
 * Saved plans (`plan --out FILE`, `apply FILE`), through the CLI against the real simulator:
 * a plan with errors is not saved (it said "run packsync apply F" and wrote F), `apply FILE`
 * refuses the flags that shaped the plan (it ignored them silently), and a file that is meant as a
 * saved plan but is of another format or damaged says so (it was read as a manifest lacking
 * apiVersion and kind). Outcomes are read from the files, the exit codes and the journal.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { flowsYaml, writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { countBy, simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;

beforeEach(async () => {
  ({ sim, env } = await simEnv());
});
afterEach(() => sim.close());

const exists = (f: string): Promise<boolean> =>
  stat(f).then(
    () => true,
    () => false,
  );

/** A converged repository whose 7-Zip flow then changed flags: a replacement that needs --allow-replace. */
async function needsReplacement(): Promise<string> {
  const repo = await writeRepo();
  expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
  await writeFile(
    join(repo, 'flows.yaml'),
    flowsYaml().replace('flags: [startNewVersionsAutomatically, radarTracking]', 'flags: [radarTracking]'),
  );
  return repo;
}

describe('plan --out does not save a plan with errors', () => {
  it('a replacement without --allow-replace: exit 1, no file, and it says the plan was not saved', async () => {
    const repo = await needsReplacement();
    const file = join(await tempDir('packsync-plan-'), 'plan.json');
    const r = await cli(['plan', repo, '--out', file, '--detailed-exitcode'], env);
    expect(r.code).toBe(1);
    expect(await exists(file)).toBe(false);
    expect(r.stderr).toContain(`The plan was not saved to ${file}: the plan has errors.`);
    expect(r.stdout).not.toMatch(/Saved the plan/);
  });

  it('leaves a file already there untouched, and says so', async () => {
    const repo = await needsReplacement();
    const file = join(await tempDir('packsync-plan-'), 'plan.json');
    await writeFile(file, 'an earlier plan');
    const r = await cli(['plan', repo, '--out', file, '--output', 'json'], env);
    expect(r.code).toBe(1);
    expect(await readFile(file, 'utf8')).toBe('an earlier plan');
    expect(r.stderr).toContain(`(the existing ${file} was left unchanged)`);
  });

  it('invalid manifests: exit 1 and no file either', async () => {
    const repo = await writeRepo();
    await writeFile(join(repo, 'flows.yaml'), 'kind: [');
    const file = join(await tempDir('packsync-plan-'), 'plan.json');
    const r = await cli(['plan', repo, '--out', file], env);
    expect(r.code).toBe(1);
    expect(await exists(file)).toBe(false);
    expect(await sim.journal()).toEqual([]);
  });

  it('with --allow-replace the same plan is saved and applies', async () => {
    const repo = await needsReplacement();
    const file = join(await tempDir('packsync-plan-'), 'plan.json');
    expect((await cli(['plan', repo, '--allow-replace', '--out', file], env)).code).toBe(0);
    const before = (await sim.journal(true)).length;
    const r = await cli(['apply', file], env);
    expect(r.code, r.stderr).toBe(0);
    expect(countBy((await sim.writes()).slice(before))).toMatchObject({ 'POST /v1/flow/create': 1 });
  });
});

describe('apply FILE refuses the flags that shaped the plan', () => {
  it('--prune, --prune-all, --adopt, --allow-replace and --drift exit 1 with zero writes, naming the flags', async () => {
    const repo = await writeRepo();
    const file = join(await tempDir('packsync-plan-'), 'plan.json');
    expect((await cli(['plan', repo, '--out', file], env)).code).toBe(0);
    for (const flags of [
      ['--prune'],
      ['--prune-all'],
      ['--adopt'],
      ['--allow-replace'],
      ['--drift', 'report'],
      ['--prune', '--drift=heal'],
    ]) {
      const r = await cli(['apply', file, ...flags], env);
      expect(r.code, flags.join(' ')).toBe(1);
      const named = flags.filter((f) => f.startsWith('--')).map((f) => f.replace(/=.*/, ''));
      expect(r.stderr, flags.join(' ')).toContain(`${named.join(', ')} cannot change a saved plan`);
    }
    expect(await sim.journal(true)).toEqual([]);
  });

  it('--auto-approve (which CI passes to every apply) is accepted, and so are execution flags', async () => {
    const repo = await writeRepo();
    const file = join(await tempDir('packsync-plan-'), 'plan.json');
    expect((await cli(['plan', repo, '--out', file], env)).code).toBe(0);
    const r = await cli(['apply', file, '--auto-approve', '--concurrency', '2', '--read-concurrency', '2'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(countBy(await sim.writes())).toEqual({
      'POST /v1/app/import/{id}': 2,
      'POST /v1/flow/create': 2,
      'POST /v1/flow/{id}/add-deployment': 2,
    });
  });
});

describe('a saved plan is told by its content', () => {
  it('an unknown format names it and the format this packsync writes', async () => {
    const repo = await writeRepo();
    const file = join(await tempDir('packsync-plan-'), 'plan.json');
    expect((await cli(['plan', repo, '--out', file], env)).code).toBe(0);
    await writeFile(file, (await readFile(file, 'utf8')).replace('"packsync-plan/v1"', '"packsync-plan/v9"'));
    const r = await cli(['apply', file, '--auto-approve'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unsupported plan format packsync-plan/v9 (this packsync writes packsync-plan/v1)');
    expect(r.stderr).not.toMatch(/apiVersion|kind/);
    expect(await sim.journal(true)).toEqual([]);
  });

  it('a damaged (truncated) plan is "not a valid saved plan", whatever its name', async () => {
    const repo = await writeRepo();
    const dir = await tempDir('packsync-plan-');
    expect((await cli(['plan', repo, '--out', join(dir, 'plan.json')], env)).code).toBe(0);
    const text = await readFile(join(dir, 'plan.json'), 'utf8');
    for (const name of ['truncated.json', 'truncated.plan']) {
      await writeFile(join(dir, name), text.slice(0, 200));
      const r = await cli(['apply', name, '--auto-approve'], env, dir);
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toContain(`${name} is not a valid saved plan: its JSON does not parse`);
    }
    await writeFile(join(dir, 'other.json'), JSON.stringify({ format: 'terraform-plan', plan: {} }));
    const other = await cli(['apply', 'other.json', '--auto-approve'], env, dir);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('other.json is not a valid saved plan: its "format" is "terraform-plan", not "packsync-plan/v1"');
    expect(await sim.journal(true)).toEqual([]);
  });

  it('a saved plan with a byte order mark is applied (regression: "its JSON does not parse")', async () => {
    const repo = await writeRepo();
    const dir = await tempDir('packsync-plan-');
    expect((await cli(['plan', repo, '--out', join(dir, 'plan.json')], env)).code).toBe(0);
    await writeFile(join(dir, 'bom.json'), `\uFEFF${await readFile(join(dir, 'plan.json'), 'utf8')}`);
    const r = await cli(['apply', 'bom.json'], env, dir);
    expect(r.code, r.stderr).toBe(0);
    expect((await sim.journal(true)).length).toBeGreaterThan(0);
  });

  it('a manifest written as JSON is still a manifest', async () => {
    const dir = await tempDir('packsync-repo-');
    const pkg = {
      apiVersion: 'packsync.dev/v1',
      kind: 'Package',
      metadata: { name: 'seven-zip-24-08' },
      spec: { catalog: { app: '7-Zip', version: '24.08' } },
    };
    await writeFile(join(dir, 'package.json'), JSON.stringify(pkg));
    const r = await cli(['apply', join(dir, 'package.json'), '--auto-approve'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(countBy(await sim.writes())).toEqual({ 'POST /v1/app/import/{id}': 1 });
  });
});
