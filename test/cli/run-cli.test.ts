/**
 * `runCli` loads only the module of the command that runs (importing all of them cost every
 * command ~0.1 s of its start). Each entry of its table must name exactly the commands its module
 * registers, or a command would miss the fast path (or load a module that does not define it).
 */
import { describe, expect, it } from 'vitest';
import { programWith } from '../../src/cli/program-shell.js';
import { buildProgram, COMMANDS, registersFor } from '../../src/cli/run-cli.js';
import type { CliIo } from '../../src/cli/io.js';
import { cli } from '../support/cli.js';

const io = { stdout: () => undefined, stderr: () => undefined, setExitCode: () => undefined, env: {} } as unknown as CliIo;

describe('the CLI loads the command that runs', () => {
  it('names in each table entry exactly the commands its module registers', async () => {
    for (const entry of COMMANDS) {
      const program = programWith(io, '0.0.0-test', [await entry.load()]);
      expect(program.commands.map((c) => c.name())).toEqual(entry.names);
    }
    const all = (await buildProgram(io, '0.0.0-test')).commands.map((c) => c.name());
    expect(all).toEqual(COMMANDS.flatMap((c) => c.names));
    expect(new Set(all).size).toBe(all.length);
  });

  it('registers the named command alone, and every command for help or an unknown name', async () => {
    const only = await registersFor(['node', 'packsync', 'promote', 'Deployment/x']);
    expect(only).toHaveLength(1);
    expect(only[0]).toBe(await COMMANDS.find((c) => c.names.includes('resume'))!.load());
    for (const argv of [
      ['node', 'packsync'],
      ['node', 'packsync', '--help'],
      ['node', 'packsync', 'aply'],
    ]) {
      expect(await registersFor(argv)).toHaveLength(COMMANDS.length);
    }
  });

  it('answers an unknown command and a command help as before', async () => {
    const typo = await cli(['aply', '.'], {});
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/unknown command 'aply'/);
    const help = await cli(['apply', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: packsync apply/);
  });
});
