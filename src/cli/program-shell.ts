/**
 * The program every command hangs from: its name, version, output and the exit behaviour of every
 * command (docs/architecture.md "CLI"). Built with all commands (`buildProgram`, help and tests) or
 * with only the one that runs (`runCli`: the others' modules are never loaded); both in run-cli.ts.
 */
import { Command } from 'commander';
import type { CliIo } from './io.js';

/** What each command module exports: adds its command (and subcommands) to the program. */
export type Register = (program: Command, io: CliIo) => void;

export function programWith(io: CliIo, version: string, registers: readonly Register[]): Command {
  const program = new Command()
    .name('packsync')
    .description('GitOps for the Package and Deployment Management Service: validate, plan and apply YAML manifests')
    .version(version)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) })
    .showHelpAfterError('(run with --help for usage)');
  for (const register of registers) register(program, io);
  for (const c of program.commands) {
    c.exitOverride();
    for (const sub of c.commands) sub.exitOverride();
  }
  return program;
}
