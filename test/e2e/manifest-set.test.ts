/**
 * Which files are the desired set (docs/manifests.md "Files"): regression tests for a symlinked
 * manifest that was skipped silently and whose deployment `--prune` then deleted, for a file left
 * out of the walk (.packsyncignore) that caused a prune, and for `plan`/`apply` resolving
 * `content:` from another root than `validate` (README layout `manifests/` in a git repository,
 * and `export --out manifests` into a repository).
 */
import { cp, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { copyExamples, EXAMPLES, tempDir } from '../support/repo.js';
import { useSim } from '../support/use-sim.js';
import type { SimEnv } from '../support/sim.js';

let s: SimEnv;
useSim((x) => (s = x));

async function deletes(): Promise<string[]> {
  return (await s.sim.journal(true)).filter((j) => j.method === 'DELETE').map((j) => j.path);
}

describe('a symlinked manifest', () => {
  it('a symlinked manifest leading outside the repository is refused, never skipped into a prune', async () => {
    const repo = await copyExamples();
    await mkdir(join(repo, '.git'));
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
    const shared = await tempDir('packsync-shared-');
    await rename(join(repo, 'deployments/pwsh.yaml'), join(shared, 'pwsh.yaml'));
    await symlink(join(shared, 'pwsh.yaml'), join(repo, 'deployments/pwsh.yaml'));
    const validate = await cli(['validate', repo], s.env);
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toMatch(/deployments\/pwsh\.yaml:1:1: .*symlink .*outside the repository/);
    const applied = await cli(['apply', repo, '--prune', '--auto-approve'], s.env);
    expect(applied.code).toBe(1);
    expect(await deletes()).toEqual([]);
  });

  it('a symlinked manifest inside the repository is followed and keeps its deployment', async () => {
    const repo = await copyExamples();
    await mkdir(join(repo, '.git'));
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
    await mkdir(join(repo, 'shared'));
    await writeFile(join(repo, '.packsyncignore'), 'shared\n');
    await rename(join(repo, 'deployments/pwsh.yaml'), join(repo, 'shared/pwsh.yaml'));
    await symlink('../shared/pwsh.yaml', join(repo, 'deployments/pwsh.yaml'));
    expect((await cli(['validate', repo], s.env)).code).toBe(0);
    const plan = await cli(['plan', repo, '--prune', '--detailed-exitcode'], s.env);
    expect(plan.code).toBe(0);
    expect((await cli(['apply', repo, '--prune', '--auto-approve'], s.env)).code).toBe(0);
    expect(await deletes()).toEqual([]);
  });

  it('a manifest file left out by .packsyncignore never causes a prune', async () => {
    const repo = await copyExamples();
    await mkdir(join(repo, '.git'));
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
    await writeFile(join(repo, '.packsyncignore'), 'deployments/pwsh.yaml\n');
    const applied = await cli(['apply', repo, '--prune', '--auto-approve'], s.env);
    expect(applied.code).toBe(0);
    expect(await deletes()).toEqual([]);
    expect(applied.stdout).toMatch(/still exists but was not read/);
  });
});

/** The README layout: examples/ as `manifests/` of a git repository, with no marker file. */
async function copyInto(repo: string): Promise<void> {
  await cp(EXAMPLES, join(repo, 'manifests'), { recursive: true, filter: (src) => !src.includes(join('examples', 'invalid')) });
  await rm(join(repo, 'manifests/.packsyncignore'));
}

describe('one repository root for validate, plan and apply', () => {
  it('content paths written from the repository root plan and apply from a manifests/ folder', async () => {
    const repo = await tempDir('packsync-layout-');
    await mkdir(join(repo, '.git'));
    await copyInto(repo);
    const pkg = join(repo, 'manifests/packages/contoso-agent.yaml');
    await writeFile(pkg, (await readFile(pkg, 'utf8')).replace('content: content/', 'content: manifests/content/'));
    await writeFile(join(repo, 'azure-pipelines.yml'), 'steps: []\n');
    expect((await cli(['validate', 'manifests'], s.env, repo)).code).toBe(0);
    expect((await cli(['plan', 'manifests'], s.env, repo)).code).toBe(0);
    expect((await cli(['apply', 'manifests', '--auto-approve'], s.env, repo)).code).toBe(0);
    expect((await cli(['plan', 'manifests', '--detailed-exitcode'], s.env, repo)).code).toBe(0);
  });

  it('a content path written from the manifests folder fails validate and plan alike, naming the path to write', async () => {
    const repo = await tempDir('packsync-layout-');
    await mkdir(join(repo, '.git'));
    await copyInto(repo);
    const validate = await cli(['validate', 'manifests'], s.env, repo);
    const plan = await cli(['plan', 'manifests'], s.env, repo);
    expect([validate.code, plan.code]).toEqual([1, 1]);
    for (const out of [validate.stdout + validate.stderr, plan.stdout + plan.stderr]) {
      expect(out).toContain('write "manifests/content/contoso-agent/1.2.3"');
    }
    expect(await s.sim.writes()).toEqual([]);
  });
});
