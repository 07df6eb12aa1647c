/**
 * The simulator's state reduced to what must be equal between two runs of the same desired set:
 * live ids, timestamps and creation order differ from run to run, natural keys do not.
 */
import type { SimState } from '../../support/sim.js';

/** `/_sim/state` packages carry more than `SimState` declares; these are the fields used here. */
export interface FullPackage {
  id: string;
  productName: string;
  productVersion: string;
  isCustom: boolean;
  appId: string | null;
  state: string;
  machineScope?: boolean;
  userScope?: boolean;
}

export interface NormalState {
  /** `catalog <appId> <version> <scope>` or `custom <name> <version>`, with the processing state. */
  packages: string[];
  /** Names of the flows not deleted. */
  flows: string[];
  /** `<flow name> <package key> <status> wave <n>`. */
  deployments: string[];
  /** `<tenant id> <package key> <state>`. */
  uploads: string[];
}

function scope(p: FullPackage): string {
  if (p.machineScope === undefined && p.userScope === undefined) return '';
  return p.machineScope && p.userScope ? 'both' : p.userScope ? 'user' : 'machine';
}

export function packageKey(p: FullPackage): string {
  return p.isCustom ? `custom ${p.productName} ${p.productVersion}` : `catalog ${p.appId ?? '?'} ${p.productVersion} ${scope(p)}`.trimEnd();
}

export function normalise(s: SimState): NormalState {
  const pkgs = new Map((s.packages as FullPackage[]).map((p) => [p.id, p]));
  const flows = new Map(s.flows.map((f) => [f.id, f]));
  const pkgKey = (id: string): string => {
    const p = pkgs.get(id);
    return p ? packageKey(p) : `missing ${id}`;
  };
  const sorted = (xs: string[]): string[] => xs.sort();
  return {
    packages: sorted((s.packages as FullPackage[]).map((p) => `${packageKey(p)} ${p.state}`)),
    flows: sorted(s.flows.filter((f) => !f.deleted).map((f) => f.name)),
    deployments: sorted(
      s.deployments
        .filter((d) => flows.get(d.flowId)?.deleted !== true)
        .map((d) => `${flows.get(d.flowId)?.name ?? `missing ${d.flowId}`} ${pkgKey(d.packageId)} ${d.status} wave ${d.currentWave}`),
    ),
    uploads: sorted(s.uploads.map((u) => `${u.tenantId} ${pkgKey(u.packageId)} ${u.state}`)),
  };
}

/** Every natural key that occurs more than once: a duplicate created by a retry or a restart. */
export function duplicates(s: SimState): string[] {
  const dup = (keys: string[]): string[] => keys.filter((k, i) => keys.indexOf(k) !== i);
  const pkgs = s.packages as FullPackage[];
  return [
    ...dup(pkgs.map((p) => packageKey(p))),
    ...dup(s.flows.filter((f) => !f.deleted).map((f) => `flow ${f.name}`)),
    ...dup(s.deployments.map((d) => `deployment ${d.flowId} ${d.packageId}`)),
    ...dup(s.uploads.map((u) => `upload ${u.tenantId} ${u.packageId}`)),
  ];
}
