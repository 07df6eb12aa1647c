/**
 * Regression (issue 20.9, operator review 3 row 18): with a directory source, `revision` was null on
 * every line of a pass but the last (docs/agent.md: "every line about a pass carries revision"). The
 * digest is known once the directory is loaded; every line after that carries it.
 */
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

describe('a directory source pass under --log-format json', () => {
  it('names the revision on every line after the load, action lines included', async () => {
    const r = await cli(['run', '--source', await writeRepo(), '--once', '--log-format', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; revision?: string | null });
    const started = lines.findIndex((l) => l.msg === 'reconcile pass started');
    const after = lines.slice(started + 1).filter((l) => 'revision' in l);
    expect(after.length).toBeGreaterThan(3);
    for (const l of after) expect(l.revision, l.msg).toMatch(/^sha256:[0-9a-f]+/);
    expect(after.some((l) => /import|create|start/.test(l.msg))).toBe(true);
  });
});
