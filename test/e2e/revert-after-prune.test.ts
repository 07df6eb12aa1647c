/**
 * A revert after prune never duplicates (docs/reconcile.md): regression test for a package version that
 * `--prune` forgot (superseded, the API cannot delete packages) and that a `git revert` then imported
 * a second time, leaving two live 7-Zip 24.08 packages.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { copyExamples, editFile } from '../support/repo.js';
import { useSim } from '../support/use-sim.js';
import type { SimEnv } from '../support/sim.js';

let s: SimEnv;
useSim((x) => (s = x));

const sevenZips = async (version: string): Promise<string[]> =>
  (await s.sim.state()).packages.filter((p) => p.productName === '7-Zip' && p.productVersion === version).map((p) => p.id);

describe('a revert after prune', () => {
  it('a revert after prune is a conflict naming --adopt, never a second import; --adopt reuses the live package', async () => {
    const repo = await copyExamples();
    const file = join(repo, 'packages/seven-zip.yaml');
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
    const [original] = await sevenZips('24.08');
    await editFile(file, 'version: "24.08"', 'version: "24.07"');
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
    expect((await cli(['apply', repo, '--prune', '--auto-approve'], s.env)).code).toBe(0);
    await editFile(file, 'version: "24.07"', 'version: "24.08"');
    const plan = await cli(['plan', repo, '-o', 'json'], s.env);
    expect(plan.code).toBe(1);
    const objects = (JSON.parse(plan.stdout) as { objects: { key: string; change: string; reasons: string[] }[] }).objects;
    const pkg = objects.find((o) => o.key === 'Package/seven-zip');
    expect(pkg?.change).toBe('conflict');
    expect(pkg?.reasons.join(' ')).toContain('--adopt');
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(1);
    expect(await sevenZips('24.08')).toEqual([original]);
    expect((await cli(['apply', repo, '--adopt', '--auto-approve'], s.env)).code).toBe(0);
    expect(await sevenZips('24.08')).toEqual([original]);
    expect((await cli(['plan', repo, '--detailed-exitcode'], s.env)).code).toBe(0);
  });
});
