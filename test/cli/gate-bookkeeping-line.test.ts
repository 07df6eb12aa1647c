/**
 * Regression (issue 20.9, operator review 3 row 23): an apply that only added an unrelated package
 * printed `✓ Deployment/seven-zip-24-08: ready (0.0 s)` for a gated deployment the plan did not
 * change: the gate's bookkeeping in the state looked like an action on the service.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { gatedYaml, PWSH_PACKAGE } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
beforeEach(async () => {
  ({ sim, env } = await simEnv());
});
afterEach(() => sim.close());

describe('apply progress', () => {
  it('prints no line for a gated deployment the plan does not change', async () => {
    const dir = await tempDir('packsync-gate-line-');
    await writeFile(join(dir, 'gated.yaml'), gatedYaml('successRate: 90%\nminDevices: 1\nsoak: 1h'));
    expect((await cli(['apply', dir, '--auto-approve'], env)).code).toBe(0);
    await writeFile(join(dir, 'pwsh.yaml'), PWSH_PACKAGE);
    const r = await cli(['apply', dir, '--auto-approve'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✓ Package\/pwsh-7-4-6: import PowerShell 7 7\.4\.6/);
    expect(r.stdout).not.toMatch(/✓ Deployment\/seven-zip-24-08/);
  });
});
