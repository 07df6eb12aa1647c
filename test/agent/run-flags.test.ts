/**
 * The drift policy per entry point (docs/manifests.md): `plan` and `apply` heal what the plan shows (a
 * person approves it); the unattended agent `run` only reports unless given `--drift heal`. The
 * flags that shape a plan are one definition, so the help texts of the three commands agree.
 */
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/run-cli.js';
import type { CliIo } from '../../src/cli/io.js';

const io: CliIo = {
  stdout: () => undefined,
  stderr: () => undefined,
  setExitCode: () => undefined,
  isTTY: false,
  env: {},
  cwd: process.cwd(),
};
const SHARED = ['--prune', '--prune-all', '--adopt', '--allow-replace', '--drift'];

const program = await buildProgram(io, '0.0.0-test');

function flags(command: string): Map<string, { description: string; default: unknown }> {
  const cmd = program.commands.find((c) => c.name() === command);
  if (!cmd) throw new Error(`no command ${command}`);
  return new Map(cmd.options.map((o) => [o.long ?? o.flags, { description: o.description, default: o.defaultValue as unknown }]));
}

describe('plan flags per entry point', () => {
  it('run, plan and apply describe --prune, --prune-all, --adopt, --allow-replace and --drift in the same words', () => {
    const [run, plan, apply] = [flags('run'), flags('plan'), flags('apply')];
    for (const f of SHARED) {
      expect(run.get(f)?.description, f).toBeDefined();
      expect(run.get(f)?.description, f).toBe(plan.get(f)?.description);
      expect(apply.get(f)?.description, f).toBe(plan.get(f)?.description);
    }
  });

  it('run reports drift by default; plan and apply heal what the plan shows', () => {
    expect(flags('run').get('--drift')?.default).toBe('report');
    expect(flags('plan').get('--drift')?.default).toBe('heal');
    expect(flags('apply').get('--drift')?.default).toBe('heal');
  });
});
