import { cliStartup } from './cli-startup.js';
import { convergeLarge, noopLarge } from './fleet.js';
import { planScale } from './plan-scale.js';
import type { Scenario } from './types.js';

export const SCENARIOS: Record<string, Scenario> = {
  'noop-large': noopLarge,
  'converge-large': convergeLarge,
  'plan-scale': planScale,
  'cli-startup': cliStartup,
};
