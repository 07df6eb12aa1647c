import type { Command } from 'commander';
import { registerAgentStatusCommand } from './agent-status-command.js';
import { registerApplyCommand } from './apply-command.js';
import { registerDemoCommand } from './demo-command.js';
import { registerExportCommand } from './export-command.js';
import { registerGateCommands } from './gate-commands.js';
import type { CliIo } from './io.js';
import { programWith } from './program-shell.js';
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

/** The program with every command (help, documentation checks, tests); `runCli` loads only the one that runs (run-cli.ts). */
export function buildProgram(io: CliIo, version: string): Command {
  return programWith(io, version, [
    registerValidateCommand,
    registerRenderCommand,
    registerPlanCommand,
    registerApplyCommand,
    registerRunCommand,
    registerExportCommand,
    registerUpdateCommand,
    registerReportCommand,
    registerRadarCommand,
    registerAgentStatusCommand,
    registerStateCommand,
    registerNotifyCommand,
    registerGateCommands,
    registerSimulatorCommand,
    registerDemoCommand,
  ]);
}
