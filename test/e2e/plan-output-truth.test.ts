/**
 * What `plan -o json|markdown` tells a pull-request bot. Regression tests for a JSON plan whose
 * top-level `errors` was empty while an object failed (and `summary` had no error count), and for a
 * markdown plan that folded the one real change (a rollout started) into `<details>`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { copyExamples, editFile } from '../support/repo.js';
import { useSim } from '../support/use-sim.js';
import type { SimEnv } from '../support/sim.js';

let s: SimEnv;
useSim((x) => (s = x));

describe('plan output', () => {
  it('JSON plan errors and summary.errors list object errors', async () => {
    const repo = await copyExamples();
    await editFile(join(repo, 'packages/seven-zip.yaml'), 'version: "24.08"', 'version: "24.09"');
    const out = await cli(['plan', repo, '-o', 'json'], s.env);
    expect(out.code).toBe(1);
    const plan = JSON.parse(out.stdout) as { errors: string[]; summary: { errors: number } };
    expect(plan.summary.errors).toBeGreaterThanOrEqual(1);
    expect(plan.errors.some((e) => e.startsWith('Package/seven-zip: REF_UNKNOWN'))).toBe(true);
  });

  it('markdown plan keeps real changes outside <details>', async () => {
    const repo = await copyExamples();
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
    await editFile(join(repo, 'deployments/pwsh.yaml'), 'state: pending', 'state: running');
    const out = await cli(['plan', repo, '-o', 'markdown'], s.env);
    expect(out.code).toBe(0);
    const row = out.stdout.indexOf('`Deployment/pwsh`');
    expect(row).toBeGreaterThan(0);
    const folded = out.stdout.indexOf('<details>');
    expect(folded === -1 || folded > row).toBe(true);
  });
});

describe('wording', () => {
  it('a quoted-percentage hint suggests "90%" for a rate written as a number', async () => {
    const repo = await copyExamples();
    await editFile(join(repo, 'deployments/contoso-agent-1-2-3.yaml'), 'successRate: 90%', 'successRate: 90');
    const out = await cli(['validate', repo], {});
    expect(out.code).toBe(1);
    expect(out.stdout + out.stderr).toContain('quote it: "90%"');
  });

  it('promote of an unknown deployment names it by kind: Deployment "zoomm"', async () => {
    const repo = await copyExamples();
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
    const out = await cli(['promote', 'Deployment/zoomm', '--reason', 'typo'], s.env);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('GATE_NO_DEPLOYMENT: Deployment "zoomm" is not in the state');
  });
});

describe('a replacement', () => {
  it('a replacement says the destroyed rollout restarts at wave 1', async () => {
    const repo = await copyExamples();
    expect((await cli(['apply', repo, '--auto-approve'], s.env)).code).toBe(0);
    await editFile(join(repo, 'flows/seven-zip.yaml'), /^ {2}scope: machine/m, '  scope: user');
    const out = await cli(['plan', repo, '--allow-replace'], s.env);
    expect(out.stdout).toMatch(
      /- Deployment\/seven-zip \(deployment \S+, Running, wave (\d)\/(\d)\) will be destroyed with the old flow; its rollout restarts at wave 1 of \2 \(was \1\/\2\)/,
    );
  });
});
