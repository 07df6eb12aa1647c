import { visible } from '../util/visible.js';
import { Command, CommanderError } from 'commander';
import { errorCode, errorMessage } from '../util/errors.js';
import { registerAgentStatusCommand } from './agent-status-command.js';
import { registerApplyCommand } from './apply-command.js';
import { registerDemoCommand } from './demo-command.js';
import { registerExportCommand } from './export-command.js';
import { checkFlagValues } from './flag-values.js';
import { registerGateCommands } from './gate-commands.js';
import type { CliIo } from './io.js';
import { connectionSecrets } from '../state/connection-secrets.js';
import { scrub } from './logger.js';
import { registerNotifyCommand } from './notify-command.js';
import { registerPlanCommand } from './plan-command.js';
import { registerRadarCommand } from './radar-command.js';
import { registerRenderCommand } from './render-command.js';
import { registerReportCommand } from './report-command.js';
import { registerRunCommand } from './run-command.js';
import { registerSimulatorCommand } from './simulator-command.js';
import { registerStateCommand } from './state-command.js';
import { registerValidateCommand } from './validate-command.js';
import { registerUpdateCommand } from './update-command.js';

export function buildProgram(io: CliIo, version: string): Command {
  const program = new Command()
    .name('packsync')
    .description('GitOps for the Package and Deployment Management Service: validate, plan and apply YAML manifests')
    .version(version)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) })
    .showHelpAfterError('(run with --help for usage)');
  registerValidateCommand(program, io);
  registerRenderCommand(program, io);
  registerPlanCommand(program, io);
  registerApplyCommand(program, io);
  registerRunCommand(program, io);
  registerExportCommand(program, io);
  registerUpdateCommand(program, io);
  registerReportCommand(program, io);
  registerRadarCommand(program, io);
  registerAgentStatusCommand(program, io);
  registerStateCommand(program, io);
  registerNotifyCommand(program, io);
  registerGateCommands(program, io);
  registerSimulatorCommand(program, io);
  registerDemoCommand(program, io);
  for (const c of program.commands) {
    c.exitOverride();
    for (const sub of c.commands) sub.exitOverride();
  }
  return program;
}

/**
 * Runs the CLI; never throws. Every error exits 1, usage errors included: exit 2 means only "changes"
 * (`plan --detailed-exitcode`), so a CI step cannot mistake a typo for a plan (docs/reconcile.md).
 */
export async function runCli(argv: string[], io: CliIo, version: string): Promise<void> {
  const program = buildProgram(io, version);
  // Before any command runs: a value that was really the next flag, an integer out of range.
  program.hook('preAction', (_program, action) => checkFlagValues(action, argv));
  const secrets = [io.env.PACKSYNC_API_KEY ?? '', ...connectionSecrets(io.env.AZURE_STORAGE_CONNECTION_STRING)].filter((s) => s.length > 0);
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode !== 0) io.setExitCode(e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 1);
      return;
    }
    const code = errorCode(e);
    io.stderr(scrub(`Error: ${code === 'INTERNAL' ? '' : `${code}: `}${visible(errorMessage(e))}`, secrets));
    io.setExitCode(1);
  }
}
