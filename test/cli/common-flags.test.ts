/**
 * The common output flags of docs/architecture.md and the README (`--no-color`, `--log-format`, `--log-level`)
 * on every command: a wrapper that passes them to each command broke on `validate`, `state list`,
 * `demo` and others ("unknown option", exit 1). Each command lists them in its --help and runs
 * with them to the same exit code, and the same errors, as without them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/run-cli.js';
import { cli } from '../support/cli.js';
import type { CliRun } from '../support/cli.js';
import { until } from '../support/poll.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { writeRepo } from '../support/manifests.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';
import { tempDir } from '../support/temp-dir.js';

const COMMON = ['--no-color', '--log-format', 'json', '--log-level', 'warn'];

/** `validate`, `state list`, …: every command that runs (the `state` and `notify` groups only hold them). */
const program = await buildProgram(
  { stdout: () => undefined, stderr: () => undefined, setExitCode: () => undefined, isTTY: false, env: {}, cwd: '.' },
  '0',
);

function leafCommands(): string[] {
  const out: string[] = [];
  const visit = (c: Command, name: string): void => {
    if (c.commands.length === 0) out.push(name);
    for (const sub of c.commands) visit(sub, `${name} ${sub.name()}`);
  };
  for (const c of program.commands) visit(c, c.name());
  return out.sort();
}

/** Errors and warnings, without the JSON log lines `--log-level` filters on the commands that log. */
const errors = (r: CliRun): string =>
  r.stderr
    .split('\n')
    .filter((l) => !l.startsWith('{'))
    .join('\n');

let sim: TestSim;
let rx: Receiver;
let repo: string;
let env: Record<string, string>;
let notifications: string;

beforeAll(async () => {
  sim = await startTestSimulator();
  rx = await startReceiver();
  repo = await writeRepo();
  const stateDir = await tempDir('packsync-state-');
  env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
  notifications = join(await tempDir('packsync-notify-'), 'notifications.yaml');
  await writeFile(
    notifications,
    `providers:\n  - name: hook\n    type: webhook\n    address: ${rx.url}/hook\nalerts:\n  - provider: hook\n`,
  );
});
afterAll(async () => {
  await rx.close();
  await sim.close();
});

describe('the common flags --no-color, --log-format and --log-level', () => {
  it('every command lists them in its --help', async () => {
    for (const name of leafCommands()) {
      const r = await cli([...name.split(' '), '--help'], {});
      expect(r.code, name).toBe(0);
      for (const flag of ['--no-color', '--log-format', '--log-level']) expect(r.stdout, `${name} --help`).toContain(flag);
    }
  });

  it('every command accepts them: the same exit code and errors as without them', async () => {
    const out = async (): Promise<string> => join(await tempDir('packsync-export-'), 'out');
    // In order: apply converges the state that state, promote and resume read; mv moves back what it moved.
    const rows: { command: string; args: string[]; again?: string[]; code: number }[] = [
      { command: 'validate', args: [repo], code: 0 },
      { command: 'apply', args: ['--auto-approve', repo], code: 0 },
      { command: 'plan', args: ['--detailed-exitcode', repo], code: 0 },
      { command: 'run', args: ['--once', '--source', repo], code: 0 },
      { command: 'export', args: ['--out', await out()], again: ['--out', await out()], code: 0 },
      { command: 'state list', args: [], code: 0 },
      { command: 'state show', args: ['Deployment/pwsh-7-4-6'], code: 0 },
      { command: 'state mv', args: ['Flow/pwsh', 'Flow/pwsh-2'], again: ['Flow/pwsh-2', 'Flow/pwsh'], code: 0 },
      { command: 'promote', args: ['Deployment/nope'], code: 1 },
      { command: 'resume', args: ['Deployment/nope', '--reason', 'checked'], code: 1 },
      { command: 'state rm', args: ['Deployment/pwsh-7-4-6'], again: ['Deployment/seven-zip-24-08'], code: 0 },
      { command: 'notify test', args: ['--provider', 'hook', '--notifications', notifications], code: 0 },
      { command: 'demo', args: ['--path', repo], code: 0 },
      { command: 'report', args: ['--from', '2020-01-01', '--to', '2020-01-02'], code: 0 },
      { command: 'radar', args: [], code: 0 },
      { command: 'status', args: ['--agent', 'http://127.0.0.1:9/'], code: 1 },
      { command: 'render', args: [repo], code: 0 },
      { command: 'update', args: ['--detailed-exitcode', repo], code: 0 },
    ];
    // The simulator runs until a signal: it is checked as a process below.
    expect([...rows.map((r) => r.command), 'simulator'].sort()).toEqual(leafCommands());
    for (const row of rows) {
      const words = row.command.split(' ');
      const without = await cli([...words, ...row.args], env);
      const flagged = await cli([...words, ...(row.again ?? row.args), ...COMMON], env);
      expect(without.code, `${row.command}: ${without.stderr}`).toBe(row.code);
      expect(flagged.code, `${row.command} with the common flags: ${flagged.stderr}`).toBe(row.code);
      expect(errors(flagged), row.command).toBe(errors(without));
    }
  });

  it('the simulator accepts them and stops cleanly on SIGTERM', async () => {
    for (const flags of [[], COMMON]) {
      const p = spawnCli(['simulator', '--port', '0', ...flags], {});
      let stderr = '';
      p.child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      await until('the simulator to listen', () => stderr.includes('packsync simulator listening on'), 10_000, {
        giveUp: () => (p.child.exitCode !== null ? `exited: ${stderr}` : undefined),
      });
      p.child.kill('SIGTERM');
      const done = await p.done;
      expect(done.code, done.stderr).toBe(0);
      expect(done.stderr).not.toContain('unknown option');
    }
  });
});
