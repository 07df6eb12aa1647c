/**
 * A named state directory that does not exist, for the commands that need an existing state
 * (docs/reconcile.md, "Remote state": the rule for a missing container, applied to --state-dir).
 * Regression: `export --state-dir /tmp/nonexist` exited 0 and exported every owned object again as
 * unowned, and `state list` said the state was empty.
 */
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { simEnv } from '../support/sim.js';
import type { SimEnv } from '../support/sim.js';
import { tempDir } from '../support/temp-dir.js';

let s: SimEnv;
let repo: string;

beforeAll(async () => {
  s = await simEnv();
  repo = await writeRepo();
  const applied = await cli(['apply', '--auto-approve', repo], s.env);
  expect(applied.code, applied.stderr).toBe(0);
});

afterAll(async () => {
  await s.sim.close();
});

/** The API env without PACKSYNC_STATE_DIR. */
function withoutDir(): Record<string, string> {
  const env: Record<string, string> = { ...s.env };
  delete env.PACKSYNC_STATE_DIR;
  return env;
}

const exists = (p: string): Promise<boolean> =>
  access(p).then(
    () => true,
    () => false,
  );

describe('a state directory that does not exist', () => {
  const commands: [string, (out: string) => string[]][] = [
    ['export', (out) => ['export', '--out', out]],
    ['state list', () => ['state', 'list']],
    ['state show', () => ['state', 'show', 'Flow/pwsh']],
    ['state mv', () => ['state', 'mv', 'Flow/pwsh', 'Flow/pwsh2']],
    ['state rm', () => ['state', 'rm', 'Flow/pwsh']],
    ['promote', () => ['promote', 'Deployment/pwsh-7-4-6']],
    ['resume', () => ['resume', 'Deployment/pwsh-7-4-6', '--reason', 'checked']],
  ];

  it.each(commands)('missing-state-dir-read-as-empty: %s exits 1 with STATE_NOT_FOUND and creates nothing', async (_name, args) => {
    const parent = await tempDir('packsync-missing-');
    const missing = join(parent, 'nonexist');
    const out = join(parent, 'exp');
    for (const how of ['flag', 'env'] as const) {
      const r =
        how === 'flag'
          ? await cli([...args(out), '--state-dir', missing], withoutDir())
          : await cli(args(out), { ...s.env, PACKSYNC_STATE_DIR: missing });
      expect(r.code, `${how}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stderr, how).toMatch(/STATE_NOT_FOUND/);
      expect(await exists(missing), how).toBe(false);
      expect(await exists(out), how).toBe(false);
    }
    // The state that does exist was left alone.
    expect((await cli(['state', 'show', 'Flow/pwsh'], s.env)).code).toBe(0);
  });

  it('missing-state-dir-read-as-empty: plan and apply still start a new state there, and the default ./.packsync may be missing', async () => {
    const parent = await tempDir('packsync-missing-');
    const fresh = join(parent, 'new-state');
    const plan = await cli(['plan', repo, '--adopt', '--state-dir', fresh], s.env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(await exists(fresh)).toBe(false);
    const apply = await cli(['apply', repo, '--auto-approve', '--adopt', '--state-dir', fresh], s.env);
    expect(apply.code, apply.stderr).toBe(0);
    expect(await exists(join(fresh, 'inventory.json'))).toBe(true);
    // No --state-dir, no PACKSYNC_STATE_DIR, no ./.packsync: a repository with no state yet.
    const list = await cli(['state', 'list', '-o', 'json'], withoutDir(), parent);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ objects: [], intents: [] });
    expect(await readdir(parent)).toEqual(['new-state']);
  });
});
