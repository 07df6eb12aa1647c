/**
 * FILE:LINE:COL names the same file the same way in every command: relative to the working
 * directory, absolute outside it. Before, for examples/invalid/bad-name, `validate bad-name` said
 * `bad-name/packages.yaml:4:9`, `plan bad-name` said `packages.yaml:4:9` (relative to the path
 * given) and `plan bad-name/packages.yaml` an absolute path; plan errors from `plan flows` in a git
 * repository named `contoso-agent.yaml`. GitHub annotations stay relative to the repository root
 * whatever the working directory. Through the CLI against the real simulator, in a git repository.
 */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { git } from '../support/git.js';
import { packagesYaml, writeManifests } from '../support/manifests.js';
import { EXAMPLES, tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;

beforeEach(async () => {
  ({ sim, env } = await simEnv());
});
afterEach(() => sim.close());

/** A git work tree holding examples/invalid/bad-name under `manifests/bad-name`. */
async function badNameRepo(): Promise<string> {
  const repo = await tempDir('packsync-repo-');
  await git(repo, 'init', '-q');
  await mkdir(join(repo, 'manifests', 'bad-name'), { recursive: true });
  await cp(join(EXAMPLES, 'invalid', 'bad-name', 'packages.yaml'), join(repo, 'manifests', 'bad-name', 'packages.yaml'));
  return repo;
}

/** The FILE:LINE:COL of every problem line of `text`. */
const locations = (text: string): string[] => [...text.matchAll(/^(\S+\.yaml:\d+:\d+):/gm)].map((m) => m[1]!);

describe('problem paths are relative to the working directory in every command', () => {
  it('validate, plan and apply of a folder or a file name bad-name/packages.yaml alike', async () => {
    const repo = await badNameRepo();
    const cwd = join(repo, 'manifests');
    const runs = [
      ['validate', 'bad-name'],
      ['plan', 'bad-name'],
      ['plan', 'bad-name/packages.yaml'],
      ['plan', join(cwd, 'bad-name')],
      ['apply', 'bad-name', '--auto-approve'],
      ['apply', 'bad-name/packages.yaml', '--auto-approve'],
    ];
    for (const args of runs) {
      const r = await cli(args, env, cwd);
      expect(r.code, args.join(' ')).toBe(1);
      expect(locations(r.stderr), args.join(' ')).toEqual(['bad-name/packages.yaml:4:9']);
    }
    const json = await cli(['plan', 'bad-name', '--output', 'json'], env, cwd);
    expect((JSON.parse(json.stdout) as { problems: { file: string }[] }).problems.map((p) => p.file)).toEqual(['bad-name/packages.yaml']);
    expect(await sim.journal()).toEqual([]);
  });

  it('from inside the folder the name is the bare file; outside the working directory it is absolute', async () => {
    const repo = await badNameRepo();
    const inside = await cli(['plan', '.'], env, join(repo, 'manifests', 'bad-name'));
    expect(locations(inside.stderr)).toEqual(['packages.yaml:4:9']);
    const elsewhere = await tempDir('packsync-cwd-');
    const outside = await cli(['plan', join(repo, 'manifests', 'bad-name')], env, elsewhere);
    expect(locations(outside.stderr)).toEqual([join(repo, 'manifests', 'bad-name', 'packages.yaml:4:9')]);
  });

  it('plan errors found against the live state (a catalog app that does not exist) too', async () => {
    const repo = await tempDir('packsync-repo-');
    await git(repo, 'init', '-q');
    await mkdir(join(repo, 'flows'));
    await writeManifests(join(repo, 'flows'));
    await writeFile(join(repo, 'flows', 'packages.yaml'), packagesYaml().replace('app: 7-Zip', 'app: 7-Zipp'));
    // The text plan names the file of each object it prints (apply as plan: cli/paths.ts showFile).
    for (const args of [
      ['plan', 'flows'],
      ['apply', 'flows', '--auto-approve'],
    ]) {
      const r = await cli(args, env, repo);
      expect(r.code, args[0]).toBe(1);
      expect(r.stdout, args[0]).toMatch(/^\s*flows\/packages\.yaml:\d+:\d+: REF_UNKNOWN: unknown catalog app "7-Zipp"/m);
    }
  });
});

describe('validate --output github', () => {
  it('names files relative to the repository root, also from a sub-folder', async () => {
    const repo = await badNameRepo();
    for (const cwd of [repo, join(repo, 'manifests'), join(repo, 'manifests', 'bad-name')]) {
      const r = await cli(['validate', '.', '--output', 'github'], {}, cwd);
      expect(r.code, cwd).toBe(1);
      expect(r.stdout, cwd).toMatch(/^::error file=manifests\/bad-name\/packages\.yaml,line=4,col=9,/m);
    }
  });
});
