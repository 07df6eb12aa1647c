import { baselineScale } from './baseline-scale.js';
import { cliStartup } from './cli-startup.js';
import { commitLatency } from './commit-latency.js';
import { convergeLarge, noopGrowth, noopLarge } from './fleet.js';
import { gates300 } from './gates.js';
import { installCold } from './install-cold.js';
import { crash10x } from './crash-10x.js';
import { fleet10x, fleetGrowth } from './fleet-10x.js';
import { fleetCli } from './fleet-cli.js';
import { patchTuesday } from './patch-tuesday.js';
import { planScale } from './plan-scale.js';
import { stopLatency } from './stop-latency.js';
import { upload } from './upload.js';
import { validate5k } from './validate.js';
import type { Scenario } from './types.js';

export const SCENARIOS: Record<string, Scenario> = {
  'noop-large': noopLarge,
  'converge-large': convergeLarge,
  'plan-scale': planScale,
  'cli-startup': cliStartup,
  upload,
  'commit-latency': commitLatency,
  'stop-latency': stopLatency,
  'validate-5k': validate5k,
  'noop-growth': noopGrowth,
  'gates-300': gates300,
  'fleet-10x': fleet10x,
  'fleet-growth': fleetGrowth,
  'crash-10x': crash10x,
  'fleet-cli': fleetCli,
  'install-cold': installCold,
  'baseline-scale': baselineScale,
  'patch-tuesday': patchTuesday,
};
