/**
 * Regression (issue 20.9/20.12, operator review 3 row 12): a content change showed only
 * `content: sha256:… → sha256:…`; a reviewer could not see which files would be uploaded. The plan now
 * names each file added, removed or changed, with its size (from the file list the state keeps per upload).
 */
import { appendFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
beforeEach(async () => {
  ({ sim, env } = await simEnv());
});
afterEach(() => sim.close());

describe('a content change in the plan', () => {
  it('names the files it adds, removes and changes, with their sizes', async () => {
    const repo = await writeRepo({ withCustom: true });
    expect((await cli(['apply', repo, '--auto-approve', '--allow-replace'], env)).code).toBe(0);
    const content = join(repo, 'content/contoso-agent');
    await appendFile(join(content, 'ContosoAgent.msi'), Buffer.alloc(1024, 1));
    await writeFile(join(content, 'README.txt'), 'new\n');
    await rm(join(content, 'bin/config.json'));
    await writeFile(join(content, 'bin/settings.json'), '{}\n');
    const plan = await cli(['plan', repo, '-o', 'json'], env);
    const fields = (
      JSON.parse(plan.stdout) as { objects: { key: string; fields: { field: string; from: unknown; to: unknown }[] }[] }
    ).objects.find((o) => o.key === 'Package/contoso-agent')!.fields;
    expect(fields).toEqual(
      expect.arrayContaining([
        { field: 'content file ContosoAgent.msi', from: '5.0 MiB', to: '5.0 MiB (changed)' },
        { field: 'content file README.txt', from: null, to: 'added, 4 B' },
        { field: 'content file bin/settings.json', from: null, to: 'added, 3 B' },
        { field: 'content file bin/config.json', from: '43 B', to: 'removed' },
      ]),
    );
    const text = await cli(['plan', repo], env);
    expect(text.stdout).toMatch(/content file bin\/config\.json: "?43 B"? → "?removed"?/);
  });
});
