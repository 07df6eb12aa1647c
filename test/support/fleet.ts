/**
 * Generated desired sets over the simulator's catalog, for reliability tests and benchmarks alike:
 * `packages / deploymentsPerFlow` catalog apps, each giving `deploymentsPerFlow` packages (its two
 * catalog versions, then installer scopes, then a script template), and `flows` flows, flow i
 * following app i mod that and deploying all of its packages. Written from the fixtures (the
 * catalog a simulator with the same `--fleet` and seed 1 serves), so generating one makes no call.
 * Compiled with bench/ (tsconfig.build.json follows bench's imports here).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildFixtures } from '../../src/simulator/fixtures.js';
import { tempDir } from './temp-dir.js';

export type DeploymentState = 'pending' | 'running' | 'stopped';

export interface FleetShape {
  flows: number;
  deploymentsPerFlow: number;
  /** A multiple of `deploymentsPerFlow`. */
  packages: number;
  /** State of deployment k of flow i; default (or undefined): every fifth deployment of a flow pending, the rest running. */
  state?: (flow: number, k: number) => DeploymentState | undefined;
  /** Patch group of flow i (its waves instead of the service's one default wave); default none. */
  patchGroup?: (flow: number) => string | undefined;
  /** Wave gate of deployment k of flow i; default none. */
  wave?: (flow: number, k: number) => number | undefined;
}

export interface Fleet {
  dir: string;
  packages: number;
  flows: number;
  deployments: number;
}

export interface FleetApp {
  name: string;
  /** Two distinct catalog versions, newest first. */
  versions: [string, string];
}

/** Names: flow i is `flows/flow-i.yaml`, deployment k of flow i is `dep-i-k`, packages `pkg-n`. */
export const deploymentName = (flow: number, k: number): string => `dep-${flow}-${k}`;

/**
 * Catalog import variants of one app: each is a distinct live package. Versions first, so two
 * packages an app differ in version, not only in installer scope (a lost import answer between
 * scopes has its own deterministic test in test/reliability/faults.test.ts).
 */
const VARIANTS: { version: 0 | 1; scope: 'machine' | 'user'; template?: string }[] = [
  { version: 0, scope: 'machine' },
  { version: 1, scope: 'machine' },
  { version: 0, scope: 'user' },
  { version: 1, scope: 'user' },
  { version: 0, scope: 'machine', template: 'PSADT 4.0 (silent)' },
  { version: 1, scope: 'machine', template: 'PSADT 4.0 (silent)' },
];

/** Catalog apps of a fixture fleet (seed 1) with a unique name and two distinct versions, in catalog order. */
export function fleetApps(catalog: 'small' | 'large' = 'large'): FleetApp[] {
  const fx = buildFixtures(1, catalog);
  const counts = new Map<string, number>();
  for (const a of fx.apps) counts.set(a.name.toLowerCase(), (counts.get(a.name.toLowerCase()) ?? 0) + 1);
  const out: FleetApp[] = [];
  for (const a of fx.apps) {
    const [v0, v1] = a.versions;
    if (!v0 || !v1 || v0.version === v1.version || counts.get(a.name.toLowerCase()) !== 1) continue;
    out.push({ name: a.name, versions: [v0.version, v1.version] });
  }
  return out;
}

/** Writes the fleet into `dir` (default a fresh temporary directory) over the first of `apps`. */
export async function writeFleet(shape: FleetShape, apps: FleetApp[] = fleetApps(), dir?: string): Promise<Fleet> {
  const per = shape.deploymentsPerFlow;
  if (per < 1 || per > VARIANTS.length) throw new Error(`deploymentsPerFlow must be 1..${VARIANTS.length}`);
  if (shape.packages % per !== 0) throw new Error(`packages (${shape.packages}) must be a multiple of deploymentsPerFlow (${per})`);
  const appCount = shape.packages / per;
  if (apps.length < appCount) throw new Error(`fleet needs ${appCount} distinct apps, the catalog has ${apps.length}`);
  const root = dir ?? (await tempDir('packsync-fleet-'));
  await mkdir(join(root, 'packages'), { recursive: true });
  await mkdir(join(root, 'flows'), { recursive: true });
  const pkgDocs: string[] = [];
  for (let i = 0; i < appCount; i++) {
    const a = apps[i]!;
    for (let k = 0; k < per; k++) {
      const v = VARIANTS[k]!;
      pkgDocs.push(
        `apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: pkg-${i * per + k}\nspec:\n  catalog:\n    app: ${JSON.stringify(a.name)}\n` +
          `    version: ${JSON.stringify(a.versions[v.version])}\n    scope: ${v.scope}\n` +
          (v.template ? `    scriptTemplate: ${JSON.stringify(v.template)}\n` : ''),
      );
    }
  }
  // 50 packages a file: many files, as a real repository would have.
  for (let f = 0; f * 50 < pkgDocs.length; f++)
    await writeFile(join(root, 'packages', `p${f}.yaml`), pkgDocs.slice(f * 50, f * 50 + 50).join('---\n'));
  for (let i = 0; i < shape.flows; i++) {
    const app = i % appCount;
    const group = shape.patchGroup?.(i);
    const docs = [
      `apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: flow-${i}\nspec:\n  name: Fleet flow ${i}\n  app: ${JSON.stringify(apps[app]!.name)}\n` +
        (group ? `  patchGroup: ${group}\n` : ''),
    ];
    for (let k = 0; k < per; k++) {
      const state = shape.state?.(i, k) ?? (k % 5 === 4 ? 'pending' : 'running');
      const wave = shape.wave?.(i, k);
      docs.push(
        `apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: ${deploymentName(i, k)}\nspec:\n  flow: flow-${i}\n  package: pkg-${app * per + k}\n  state: ${state}\n` +
          (wave !== undefined ? `  wave: ${wave}\n` : ''),
      );
    }
    await writeFile(join(root, 'flows', `flow-${i}.yaml`), docs.join('---\n'));
  }
  return { dir: root, packages: shape.packages, flows: shape.flows, deployments: shape.flows * per };
}
