/**
 * Content trust (issue 20): a saved plan applies exactly the content that was reviewed, the uploader
 * never finalizes bytes other than the planned ones, and content never reaches into `.git`, the
 * state or a credential file. Through the CLI against the real simulator; outcomes from the exit
 * codes, the journal and the state.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { uploadContentDirectory } from '../../src/api/upload.js';
import { inspectContent } from '../../src/manifests/content.js';
import { cli } from '../support/cli.js';
import { customYaml, writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;

beforeEach(async () => {
  ({ sim, env, stateDir } = await simEnv());
});
afterEach(() => sim.close());

const writes = async (): Promise<string[]> => (await sim.journal(true)).map((e) => `${e.method} ${e.path}`);

describe('a saved plan and its content', () => {
  it('is refused as stale when a content file changed after the plan was saved (regression: apply FILE uploaded unreviewed bytes and recorded the planned digest)', async () => {
    const repo = await writeRepo({ withCustom: true });
    const file = join(await tempDir('packsync-plan-'), 'saved.plan');
    const planned = await cli(['plan', repo, '--out', file], env);
    expect(planned.code).toBe(0);
    await appendFile(join(repo, 'content/contoso-agent/bin/config.json'), '  ');
    const before = await writes();
    const r = await cli(['apply', file], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /STALE_PLAN: stale plan: content changed since the plan was made \(Package\/contoso-agent: bin\/config\.json changed \(\d+ → \d+ bytes\)/,
    );
    expect(await writes()).toEqual(before);
  });

  it('applies when the content is as reviewed, and the state records the digest of what was sent', async () => {
    const repo = await writeRepo({ withCustom: true });
    const file = join(await tempDir('packsync-plan-'), 'saved.plan');
    expect((await cli(['plan', repo, '--out', file], env)).code).toBe(0);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { plan: { actions: { op: string; digest?: string; files?: unknown[] }[] } };
    const upload = saved.plan.actions.find((a) => a.op === 'upload-content');
    expect(upload?.files?.length).toBeGreaterThan(0);
    expect((await cli(['apply', file], env)).code).toBe(0);
    const inventory = JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as {
      objects: Record<string, { contentDigest?: string; phase?: string }>;
    };
    expect(inventory.objects['Package/contoso-agent']).toMatchObject({ contentDigest: upload?.digest });
  });

  it('names the content folder on the upload line of the plan', async () => {
    const repo = await writeRepo({ withCustom: true });
    const r = await cli(['plan', repo], env);
    expect(r.stdout).toMatch(/upload \d+ files \(\d+ bytes\) from content\/contoso-agent/);
  });
});

describe('the uploader', () => {
  it('finalizes nothing when the bytes it sends differ from the planned digest (regression: a same-size swap after review was published)', async () => {
    const dir = await tempDir('packsync-content-');
    await writeFile(join(dir, 'setup.msi'), 'REVIEWED-BYTES-AAAA');
    const root = await tempDir('packsync-root-');
    const checked = await inspectContent(dir, dir, '.');
    expect(checked.ok).toBe(false); // the root itself is refused; digest a folder below it instead
    await mkdir(join(root, 'pkg'));
    await writeFile(join(root, 'pkg', 'setup.msi'), 'REVIEWED-BYTES-AAAA');
    const reviewed = await inspectContent(root, root, 'pkg');
    if (!reviewed.ok) throw new Error(reviewed.message);
    await writeFile(join(root, 'pkg', 'setup.msi'), 'EVIL-SWAPPED-BYTES!');
    const api = createApiClient({ baseUrl: `${sim.url}/v1`, apiKey: sim.key });
    try {
      const pkg = await api.createPackage({ name: 'Swap', publisher: 'P', version: '1', sourceType: 0 } as never);
      await expect(uploadContentDirectory(api, pkg.id, join(root, 'pkg'), { expectDigest: reviewed.content.digest })).rejects.toThrow(
        /changed since the plan was made.*nothing was finalized/,
      );
      expect((await writes()).filter((w) => w.endsWith('/finalize'))).toEqual([]);
    } finally {
      await api.close();
    }
  });
});

describe('content never leaves the package', () => {
  const validate = async (
    content: string,
    prepare: (repo: string) => Promise<void>,
  ): Promise<{ code: number; stdout: string; stderr: string }> => {
    const repo = await writeRepo();
    await writeFile(join(repo, 'custom.yaml'), customYaml().replace('content: content/contoso-agent', `content: ${content}`));
    await prepare(repo);
    return cli(['validate', repo], env);
  };

  it('refuses content: .git (regression: the CI checkout’s credentials were uploaded)', async () => {
    const r = await validate('.git', async (repo) => {
      await mkdir(join(repo, '.git'));
      await writeFile(join(repo, '.git', 'config'), '[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n');
    });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/custom\.yaml:\d+:\d+: .*content "\.git" is in the hidden folder "\.git"/);
    expect(await writes()).toEqual([]);
  });

  it('refuses the state directory and any folder below a dot-folder', async () => {
    for (const content of ['.packsync', 'ci/.cache/pkg']) {
      const r = await validate(content, async (repo) => {
        await mkdir(join(repo, content), { recursive: true });
        await writeFile(join(repo, content, 'inventory.json'), '{}');
      });
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).toMatch(/is in the hidden folder/);
    }
  });

  it('refuses a content folder holding a git directory, a credential file or a packsync state', async () => {
    const cases: [string, string][] = [
      ['.git/config', 'is a git directory or a credential file'],
      ['sub/.git-credentials', 'is a git directory or a credential file'],
      ['.netrc', 'is a git directory or a credential file'],
      ['state/inventory.json', 'holds a packsync state'],
    ];
    for (const [file, message] of cases) {
      const r = await validate('content/pkg', async (repo) => {
        await mkdir(join(repo, 'content/pkg', file, '..'), { recursive: true });
        await writeFile(join(repo, 'content/pkg', file), 'x');
        await writeFile(join(repo, 'content/pkg/setup.msi'), 'msi');
        if (file.endsWith('inventory.json')) await writeFile(join(repo, 'content/pkg/state/journal.jsonl'), '');
      });
      expect(r.code, file).toBe(1);
      expect(r.stdout + r.stderr, file).toContain(message);
    }
  });
});
