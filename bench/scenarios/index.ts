import { cliStartup } from './cli-startup.js';
import { planScale } from './plan-scale.js';
import type { Scenario } from './types.js';

export const SCENARIOS: Record<string, Scenario> = {
  'plan-scale': planScale,
  'cli-startup': cliStartup,
};
