/**
 * `npm start`: the whole product in one go against the embedded simulator: converge examples/,
 * show what happened, plan again to show it is idempotent, and say what to try next.
 */
import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiClient } from '../api/client.js';
import { applyPlanned, planPass } from '../engine/reconcile.js';
import { formatPlanText } from '../plan/render/format.js';
import { timeScale } from './simulator-command.js';
import { DEFAULT_PLAN_OPTIONS } from '../plan/types.js';
import { resultText } from './apply-command.js';
import { addOutputOptions, useColor } from './common.js';
import type { CliIo } from './io.js';
import { problemLines } from './print-problems.js';
import { createProgressRenderer } from './progress.js';

export const EXAMPLES_DIR = fileURLToPath(new URL('../../../examples', import.meta.url));

export function registerDemoCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('demo')
    .description('converge examples/ against an embedded simulator (what `npm start` runs)')
    .option('--path <dir>', 'manifests to converge', EXAMPLES_DIR)
    .option('--time-scale <n>', 'simulator virtual seconds per real second', '600');
  addOutputOptions(cmd, { colour: true }).action(async (opts: { path: string; timeScale: string; color?: boolean }) => {
    const { startSimulator } = await import('../simulator/server.js');
    const key = randomBytes(16).toString('hex');
    const sim = await startSimulator({ apiKeys: [key], fleet: 'small', timeScale: timeScale(opts.timeScale) });
    const stateDir = await mkdtemp(join(tmpdir(), 'packsync-demo-'));
    const api = createApiClient({ baseUrl: sim.url, apiKey: key });
    const started = Date.now();
    try {
      io.stdout(`▶ Simulator running at ${sim.url} (small fleet: 4 tenants, 25 catalog apps, 3 patch groups)`);
      io.stdout(`▶ Converging ${opts.path} (state in ${stateDir})\n`);
      // Plan first (a value, nothing written), then execute exactly that plan: the demo shows the
      // same order as a pull request review followed by a merge, without reading live state twice.
      const planned = await planPass({ path: opts.path, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS });
      if (planned.kind === 'invalid') {
        io.stderr(problemLines(planned.problems));
        io.setExitCode(1);
        return;
      }
      io.stdout(formatPlanText(planned.plan, { color: useColor(opts, io) }));
      io.stdout('\n▶ Applying\n');
      // The demo is its own approval: it runs against a simulator it just started.
      const result = await applyPlanned(planned, api, {
        // No colour means no cursor control either, as in apply: plain progress lines.
        onEvent: createProgressRenderer(io.stdout, io.isTTY && useColor(opts, io), (s) => process.stdout.write(s)),
      });
      if (!result) {
        io.setExitCode(1);
        return;
      }
      io.stdout(resultText(result, planned.plan));
      io.stdout('\n▶ Planning again: a converged repository needs no writes\n');
      const second = await planPass({ path: opts.path, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS });
      if (second.kind === 'planned') io.stdout(formatPlanText(second.plan, { color: useColor(opts, io) }));
      const failed = result.failed;
      io.stdout(
        [
          '',
          `Done in ${((Date.now() - started) / 1000).toFixed(1)} s.${failed > 0 ? ` ${failed} object(s) failed.` : ''}`,
          'Next:',
          '  npx packsync simulator --port 4010 --api-key dev-key      # a simulator of your own (600 virtual seconds per second, like this demo; --time-scale 1 is real time)',
          '  export PACKSYNC_API_URL=http://127.0.0.1:4010 PACKSYNC_API_KEY=dev-key',
          '  npx packsync validate examples && npx packsync plan examples && npx packsync apply examples   # asks before it changes anything',
          '  npx packsync run --source examples --watch --listen 127.0.0.1:8080   # the agent loop',
        ].join('\n'),
      );
      if (failed > 0) io.setExitCode(1);
    } finally {
      await api.close();
      await sim.close();
      await rm(stateDir, { recursive: true, force: true });
    }
  });
}
