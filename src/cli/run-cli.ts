/**
 * Runs the CLI. Only the module of the command that runs is loaded: importing every command's
 * module (the simulator, the report renderers, the agent…) cost `packsync apply` ~0.1 s of its
 * start (docs/performance.md "fleet-cli"). Help, an unknown command or a flag before the command
 * name load them all, as `buildProgram` does. The table below is the one list of commands.
 */
import { CommanderError } from 'commander';
import type { Command } from 'commander';
import { checkFlagValues } from './flag-values.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { earlyErrorDocument, shownError } from './error-document.js';
import { programWith } from './program-shell.js';
import type { Register } from './program-shell.js';

/** Every top-level command, by the names it registers, in the order help lists them. */
export const COMMANDS: readonly { names: readonly string[]; load: () => Promise<Register> }[] = [
  { names: ['validate'], load: async () => (await import('./validate-command.js')).registerValidateCommand },
  { names: ['render'], load: async () => (await import('./render-command.js')).registerRenderCommand },
  { names: ['plan'], load: async () => (await import('./plan-command.js')).registerPlanCommand },
  { names: ['apply'], load: async () => (await import('./apply-command.js')).registerApplyCommand },
  { names: ['run'], load: async () => (await import('./run-command.js')).registerRunCommand },
  { names: ['export'], load: async () => (await import('./export-command.js')).registerExportCommand },
  { names: ['update'], load: async () => (await import('./update-command.js')).registerUpdateCommand },
  { names: ['report'], load: async () => (await import('./report-command.js')).registerReportCommand },
  { names: ['radar'], load: async () => (await import('./radar-command.js')).registerRadarCommand },
  { names: ['status'], load: async () => (await import('./agent-status-command.js')).registerAgentStatusCommand },
  { names: ['state'], load: async () => (await import('./state-command.js')).registerStateCommand },
  { names: ['notify'], load: async () => (await import('./notify-command.js')).registerNotifyCommand },
  { names: ['promote', 'resume'], load: async () => (await import('./gate-commands.js')).registerGateCommands },
  { names: ['simulator'], load: async () => (await import('./simulator-command.js')).registerSimulatorCommand },
  { names: ['demo'], load: async () => (await import('./demo-command.js')).registerDemoCommand },
];

/** The registers `argv` needs: the named command's alone, or all of them. */
export async function registersFor(argv: readonly string[]): Promise<Register[]> {
  const named = COMMANDS.find((c) => c.names.includes(argv[2] ?? ''));
  return named ? [await named.load()] : Promise.all(COMMANDS.map((c) => c.load()));
}

/** The program with every command: what help shows, and what the documentation checks and tests read. */
export async function buildProgram(io: CliIo, version: string): Promise<Command> {
  return programWith(io, version, await Promise.all(COMMANDS.map((c) => c.load())));
}

/**
 * Never throws. Every error exits 1, usage errors included: exit 2 means only "changes"
 * (`plan --detailed-exitcode`), so a CI step cannot mistake a typo for a plan (docs/reconcile.md).
 */
export async function runCli(argv: string[], io: CliIo, version: string): Promise<void> {
  const program = programWith(io, version, await registersFor(argv));
  // Before any command runs: a value that was really the next flag, an integer out of range.
  let actionRan = false;
  program.hook('preAction', (_program, action) => {
    checkFlagValues(action, argv);
    actionRan = true;
  });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      const fine = e.exitCode === 0 || e.code === 'commander.helpDisplayed' || e.code === 'commander.version';
      if (!fine) earlyErrorDocument(argv, io, { code: 'USAGE', message: e.message.replace(/^error: /, '') });
      if (e.exitCode !== 0) io.setExitCode(fine ? 0 : 1);
      return;
    }
    const shown = shownError(e, io.env);
    // A refused flag value fails before the action, so before the action's own error document.
    if (e instanceof UsageError && !actionRan) earlyErrorDocument(argv, io, shown);
    io.stderr(`Error: ${shown.code === 'INTERNAL' ? '' : `${shown.code}: `}${shown.message}`);
    io.setExitCode(1);
  }
}
