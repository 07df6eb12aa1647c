/**
 * Regression (issue 20.9, operator review 3 row 17): with `--log-format json` the lock takeover
 * warning was the one plain-text line in a stream of JSON lines, which log shippers cannot parse.
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
beforeEach(async () => {
  ({ sim, env, stateDir } = await simEnv());
});
afterEach(() => sim.close());

describe('a lock taken over under --log-format json', () => {
  it('is a JSON log line at level warn, like every other line', async () => {
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    await writeFile(join(stateDir, 'lock'), JSON.stringify({ pid: dead, host: hostname(), since: '2026-01-01T00:00:00.000Z' }));
    const r = await cli(['apply', await writeRepo(), '--auto-approve', '--log-format', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
    const parsed = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    const warning = parsed.find((l) => l.msg.includes('taking over the lock'));
    expect(warning?.level).toBe(40);
    expect(warning?.msg).toContain(`from pid ${dead}`);
  });
});
