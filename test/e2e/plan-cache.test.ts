/**
 * The manifest cache across processes (issue #12): `packsync plan` keeps what each unchanged file
 * loaded to in `<stateDir>/cache/`, and the next `plan` (a new process reading that file) must show
 * the identical plan with the same exit code, with changes pending and once converged. A cache never
 * creates a state directory, and a repository made invalid after the cache was written is still
 * refused with no API call.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../../src/manifests/parse-cache.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import type { TestSim } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';
import { spawnCli } from '../support/spawn-cli.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
useSim((s) => ({ sim, env, stateDir } = s));

/** `plan --output json --detailed-exitcode`: the exit code and the plan without its timestamp. */
async function plan(repo: string, e = env): Promise<{ code: number | null; plan: unknown; stderr: string }> {
  const r = await spawnCli(['plan', repo, '--output', 'json', '--detailed-exitcode'], e).done;
  const parsed = r.code === 1 ? null : (JSON.parse(r.stdout) as Record<string, unknown>);
  if (parsed) delete parsed.generatedAt;
  return { code: r.code, plan: parsed, stderr: r.stderr };
}

/** A `--import` hook that writes, at exit, the files of the yaml package the process loaded. */
async function yamlProbe(): Promise<{ flags: string[]; loaded: () => Promise<string[]> }> {
  const dir = await tempDir('packsync-yaml-probe-');
  const out = join(dir, 'loaded.json');
  const hook = join(dir, 'hook.mjs');
  await writeFile(
    hook,
    `import { createRequire } from 'node:module';\nimport { writeFileSync } from 'node:fs';\nconst req = createRequire(import.meta.url);\nprocess.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(req.cache).filter((k) => /node_modules[\\\\/]yaml[\\\\/]dist/.test(k)))));\n`,
  );
  return { flags: [`--import=${hook}`], loaded: async () => JSON.parse(await readFile(out, 'utf8')) as string[] };
}

describe('plan with the manifest cache of the state directory', () => {
  it('a plan whose files all come from the cache does not load the YAML parser (~40 ms of every start)', async () => {
    const repo = await writeRepo();
    const cold = await yamlProbe();
    const first = await spawnCli(['plan', repo], env, 'pipe', process.cwd(), cold.flags).done;
    expect(first.code, first.stderr).toBe(0);
    expect((await cold.loaded()).length).toBeGreaterThan(0);
    const warm = await yamlProbe();
    const second = await spawnCli(['plan', repo], env, 'pipe', process.cwd(), warm.flags).done;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(await warm.loaded()).toEqual([]);
  });

  it('a second plan over an unchanged repository shows the identical plan and exit code, before and after apply', async () => {
    const repo = await writeRepo();
    const first = await plan(repo);
    expect(first.code, first.stderr).toBe(2);
    const cacheFile = join(stateDir, CACHE_FILE);
    const written = await readFile(cacheFile, 'utf8');
    const second = await plan(repo);
    expect(second).toEqual(first);
    // Nothing changed, so the second plan did not rewrite it.
    expect(await readFile(cacheFile, 'utf8')).toBe(written);

    const applied = await spawnCli(['apply', repo, '--auto-approve'], env).done;
    expect(applied.code, applied.stderr).toBe(0);
    const converged = await plan(repo);
    expect(converged.code, converged.stderr).toBe(0);
    expect(await plan(repo)).toEqual(converged);
  });

  it('a file made invalid after the cache was written is refused again, with no API call', async () => {
    const repo = await writeRepo();
    expect((await plan(repo)).code).toBe(2);
    const file = join(repo, 'deployments.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('state: pending', 'state: paused'));
    const calls = (await sim.journal()).length;
    const invalid = await plan(repo);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/deployments\.yaml:\d+:\d+/);
    expect((await sim.journal()).length).toBe(calls);
  });

  it('does not create a state directory that does not exist', async () => {
    const missing = join(await tempDir('packsync-no-state-'), 'state');
    const r = await plan(await writeRepo(), { ...env, PACKSYNC_STATE_DIR: missing });
    expect(r.code, r.stderr).toBe(2);
    expect(await stat(missing).catch(() => null)).toBeNull();
  });
});
