/**
 * Regression (issue 20.16, security review 3 finding 9): escape sequences in a manifest reached the
 * terminal raw in plan text, apply progress and problem lines, even with `--no-color` and a pipe.
 * They are shown as `\u001b` now; the JSON plan keeps the exact value (JSON escapes it itself).
 */
import { readFile, writeFile } from 'node:fs/promises';
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

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

async function evilRepo(): Promise<string> {
  const repo = await writeRepo();
  const flows = join(repo, 'flows.yaml');
  // YAML's "\e" is ESC: a title change, a screen clear and a colour in one flow name.
  const text = (await readFile(flows, 'utf8')).replace('app: 7-Zip', 'app: 7-Zip\n  name: "EVIL\\e]0;PWNED\\a\\e[2J\\e[31mRED"');
  await writeFile(flows, text);
  return repo;
}

describe('text output never drives the terminal', () => {
  it('plan text, apply progress and problem lines show control characters as escapes', async () => {
    const repo = await evilRepo();
    const plan = await cli(['plan', repo], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('EVIL\\u001b]0;PWNED\\u0007\\u001b[2J');
    expect(plan.stdout).not.toMatch(RAW);
    const json = await cli(['plan', repo, '-o', 'json'], env);
    expect(json.stdout).toContain('EVIL\\u001b]0;PWNED\\u0007');
    const apply = await cli(['apply', repo, '--auto-approve'], env);
    expect(apply.code).toBe(0);
    expect(apply.stdout + apply.stderr).not.toMatch(RAW);

    // A problem whose message quotes the value: one line, no raw control character, no raw newline.
    const bad = join(repo, 'deployments.yaml');
    await writeFile(bad, (await readFile(bad, 'utf8')).replace('state: running', 'state: "run\\e[2J\\n::error file=x::owned"'));
    const invalid = await cli(['plan', repo], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).not.toMatch(RAW);
    expect(invalid.stderr.split('\n').some((l) => l.startsWith('::error'))).toBe(false);
  });
});
