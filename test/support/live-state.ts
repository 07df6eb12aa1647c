/**
 * A live state of owned flows built by hand, as a pass would hold it after its reads: for the
 * history's tests, where the flows' details are what matters and thousands of rollouts through the
 * CLI would take minutes. Lists a pass would not read are empty and marked unread.
 */
import type { LiveState } from '../../src/live/types.js';

export interface HandFlow {
  id: string;
  name: string;
  details: { id: string; name: string; waves: unknown[]; deployments: unknown[] };
}

export function liveStateOf(flows: readonly HandFlow[], serviceTime: string): LiveState {
  return {
    apps: [],
    appVersions: {},
    templates: [],
    tenants: [],
    packages: [],
    flows,
    deployments: flows.flatMap((f) => f.details.deployments),
    uploads: {},
    read: { apps: false, templates: false, tenants: false, packages: true, flows: true },
    serviceTime,
  } as unknown as LiveState;
}
