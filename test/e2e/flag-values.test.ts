/**
 * Flag values the CLI must refuse before doing anything (src/cli/flag-values.ts): a value that was
 * really the next flag (`plan --out --detailed-exitcode` wrote a file named `--detailed-exitcode`
 * and exited 0 where CI expected 2), and integer flags that are not plain decimal integers in their
 * range (`--api-rate-limit -1`, `--api-concurrency 1e3`, `--concurrency 99999999999` were accepted).
 * Through the CLI against the real simulator; "before any call" is read from its journal.
 */
import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { INTEGER_FLAGS } from '../../src/cli/flag-values.js';
import type { CliIo } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/run-cli.js';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';

let sim: TestSim;
let env: Record<string, string>;

beforeEach(async () => {
  ({ sim, env } = await simEnv());
});
afterEach(() => sim.close());

describe('a flag that takes a value refuses the next flag as its value', () => {
  it('plan --out --detailed-exitcode exits 1 naming --out, writes no file and makes no call', async () => {
    const repo = await writeRepo();
    const cwd = await tempDir('packsync-cwd-');
    const r = await spawnCli(['plan', repo, '--out', '--detailed-exitcode'], env, 'pipe', cwd).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--out needs a value, but the next word is "--detailed-exitcode"/);
    expect(await readdir(cwd)).toEqual([]);
    expect(await sim.journal()).toEqual([]);
  });

  it('the same for path, file and other value flags of every command', async () => {
    const repo = await writeRepo();
    const cases: [string[], string][] = [
      [['plan', repo, '--state-dir', '--prune'], '--state-dir'],
      [['apply', repo, '--api-key-file', '--auto-approve'], '--api-key-file'],
      [['plan', repo, '--api-url', '--detailed-exitcode'], '--api-url'],
      [['export', '--out', '--force'], '--out'],
      [['run', '--source', '--once'], '--source'],
      [['state', 'list', '--state-dir', '--output'], '--state-dir'],
    ];
    for (const [args, flag] of cases) {
      const r = await cli(args, env);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain(`${flag} needs a value`);
    }
    expect(await sim.journal()).toEqual([]);
  });

  it('a value that starts with "-" is still accepted as FLAG=VALUE', async () => {
    const cwd = await tempDir('packsync-cwd-');
    const r = await cli(['plan', await writeRepo(), '--out=-plan.json'], env, cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(await readdir(cwd)).toEqual(['-plan.json']);
  });
});

describe('integer flags take plain decimal integers within their range', () => {
  it('refuses signs, exponents, fractions, hex and values out of range, naming the flag and the range', async () => {
    const repo = await writeRepo();
    const cases: [string, string, string][] = [
      ['plan', '--api-rate-limit', '-1'],
      ['plan', '--api-concurrency', '1e3'],
      ['plan', '--api-concurrency', '0'],
      ['plan', '--api-timeout', '0x10'],
      ['plan', '--read-concurrency', '1.5'],
      ['apply', '--concurrency', '99999999999'],
      ['apply', '--concurrency', '1.5'],
      ['apply', '--wait-timeout', '+5'],
      ['apply', '--api-timeout', '99999999999'],
    ];
    for (const [command, flag, value] of cases) {
      const r = await cli([command, repo, flag, value], env);
      const { min, max } = INTEGER_FLAGS[flag]!;
      expect(r.code, `${flag} ${value}`).toBe(1);
      expect(r.stderr, `${flag} ${value}`).toContain(`${flag} must be a whole number from ${min} to ${max} (got "${value}")`);
    }
    expect(await sim.journal()).toEqual([]);
  });

  it('accepts the bounds themselves: --api-rate-limit 0 (off), --concurrency 256', async () => {
    const r = await cli(['apply', await writeRepo(), '--auto-approve', '--api-rate-limit', '0', '--concurrency', '256'], env);
    expect(r.code, r.stderr).toBe(0);
    expect((await sim.journal(true)).length).toBeGreaterThan(0);
  });

  it('every flag that takes a count, milliseconds, seconds or a port has a range (--time-scale takes fractions)', async () => {
    const io: CliIo = { stdout: () => undefined, stderr: () => undefined, setExitCode: () => undefined, isTTY: false, env: {}, cwd: '.' };
    const numeric = new Set<string>();
    const visit = (c: Command): void => {
      for (const o of c.options) if (o.long && /<(n|ms|seconds|port)>/.test(o.flags) && o.long !== '--time-scale') numeric.add(o.long);
      c.commands.forEach(visit);
    };
    visit(await buildProgram(io, '0.0.0-test'));
    expect([...numeric].sort()).toEqual(Object.keys(INTEGER_FLAGS).sort());
  });

  it('checks the simulator and gate commands too (a range for every integer flag there is)', async () => {
    const sim1 = await cli(['simulator', '--port', '70000'], {});
    expect(sim1.code).toBe(1);
    expect(sim1.stderr).toContain('--port must be a whole number from 0 to 65535 (got "70000")');
    const wait = await cli(['promote', 'Deployment/x', '--wait', '1e2'], env);
    expect(wait.code).toBe(1);
    expect(wait.stderr).toContain('--wait must be a whole number from 1 to 86400 (got "1e2")');
    expect(await sim.journal()).toEqual([]);
  });
});

describe('time and duration flags', () => {
  it('refuses a time scale that freezes the clock and a pass timeout no pass fits in (regression: demo --time-scale 0 hung; run --pass-timeout 0s aborted every pass)', async () => {
    const repo = await writeRepo();
    const cases: [string[], RegExp][] = [
      [['demo', '--time-scale', '0'], /--time-scale must be a number from 0\.001/],
      [['simulator', '--time-scale', '1e-300'], /--time-scale must be a number from 0\.001/],
      [['run', '--source', repo, '--once', '--pass-timeout', '0s'], /--pass-timeout must be at least 1s/],
      [['run', '--source', repo, '--once', '--interval', '9999h'], /--interval must be at most/],
    ];
    for (const [args, message] of cases) {
      const r = await spawnCli(args, env).done;
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    expect(await sim.journal()).toEqual([]);
  });
});

describe('a secret file a flag names', () => {
  it('missing: exit 1 naming the flag and the file, no raw Node error, no call (regression: "Error: ENOENT: no such file or directory")', async () => {
    const repo = await writeRepo();
    const missing = `${await tempDir('packsync-secrets-')}/nope`;
    for (const flag of ['--webhook-secret-file', '--git-token-file']) {
      const r = await cli(['run', '--once', '--source', repo, flag, missing], env);
      expect(r.code, flag).toBe(1);
      expect(r.stderr).toContain(`${flag}: cannot read ${missing} (ENOENT)`);
      expect(r.stderr).not.toMatch(/^Error: ENOENT/m);
    }
    expect(await sim.journal()).toEqual([]);
  });
});
