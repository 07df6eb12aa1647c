/**
 * Generated desired sets over the simulator's catalog, for reliability tests and benchmarks alike:
 * catalog apps each giving up to four packages (its two catalog versions, then installer scopes),
 * and `flows` flows (see writeFleet for which packages each deploys). Written from the fixtures (the
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
 * Catalog import variants of one app: each is a distinct live package, told apart live by app,
 * version and installer scope (a script template is not part of that identity, so two packages
 * differing only in it are one live package: `package.duplicate`). Versions first, so two packages
 * of an app differ in version, not only in installer scope (a lost import answer between scopes
 * has its own deterministic test in test/reliability/faults.test.ts).
 */
const VARIANTS: { version: 0 | 1; scope: 'machine' | 'user' }[] = [
  { version: 0, scope: 'machine' },
  { version: 1, scope: 'machine' },
  { version: 0, scope: 'user' },
  { version: 1, scope: 'user' },
];

/** Live packages one app gives a fleet of this shape. */
const variantsOf = (shape: Pick<FleetShape, 'deploymentsPerFlow'>): number => Math.min(shape.deploymentsPerFlow, VARIANTS.length);

/** How many catalog apps a fleet of this shape uses (the first of `fleetApps()`). */
export function fleetAppCount(shape: Pick<FleetShape, 'deploymentsPerFlow' | 'packages'>): number {
  return Math.ceil(shape.packages / variantsOf(shape));
}

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

/**
 * Writes the fleet into `dir` (default a fresh temporary directory) over the first of `apps`. Up to
 * four deployments a flow, flow i is a flow of app i mod the app count deploying that app's
 * packages; with more (an app has only four distinct packages), flows are named flows (no app,
 * which take any package) deploying `deploymentsPerFlow` consecutive packages.
 */
export async function writeFleet(shape: FleetShape, apps: FleetApp[] = fleetApps(), dir?: string): Promise<Fleet> {
  const per = shape.deploymentsPerFlow;
  const variants = variantsOf(shape);
  const byApp = per <= VARIANTS.length;
  if (per < 1) throw new Error('deploymentsPerFlow must be at least 1');
  if (byApp && shape.packages % per !== 0)
    throw new Error(`packages (${shape.packages}) must be a multiple of deploymentsPerFlow (${per})`);
  if (!byApp && shape.packages < per) throw new Error(`packages (${shape.packages}) must be at least deploymentsPerFlow (${per})`);
  const appCount = fleetAppCount(shape);
  if (apps.length < appCount) throw new Error(`fleet needs ${appCount} distinct apps, the catalog has ${apps.length}`);
  const root = dir ?? (await tempDir('packsync-fleet-'));
  await mkdir(join(root, 'packages'), { recursive: true });
  await mkdir(join(root, 'flows'), { recursive: true });
  const pkgDocs: string[] = [];
  for (let n = 0; n < shape.packages; n++) {
    const a = apps[Math.floor(n / variants)]!;
    const v = VARIANTS[n % variants]!;
    pkgDocs.push(
      `apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: pkg-${n}\nspec:\n  catalog:\n    app: ${JSON.stringify(a.name)}\n` +
        `    version: ${JSON.stringify(a.versions[v.version])}\n    scope: ${v.scope}\n`,
    );
  }
  // 50 packages a file: many files, as a real repository would have.
  for (let f = 0; f * 50 < pkgDocs.length; f++)
    await writeFile(join(root, 'packages', `p${f}.yaml`), pkgDocs.slice(f * 50, f * 50 + 50).join('---\n'));
  for (let i = 0; i < shape.flows; i++) {
    const app = i % appCount;
    const group = shape.patchGroup?.(i);
    const docs = [
      `apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: flow-${i}\nspec:\n  name: Fleet flow ${i}\n` +
        (byApp ? `  app: ${JSON.stringify(apps[app]!.name)}\n` : '') +
        (group ? `  patchGroup: ${group}\n` : ''),
    ];
    for (let k = 0; k < per; k++) {
      const state = shape.state?.(i, k) ?? (k % 5 === 4 ? 'pending' : 'running');
      const wave = shape.wave?.(i, k);
      const pkg = byApp ? app * per + k : (i * per + k) % shape.packages;
      docs.push(
        `apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: ${deploymentName(i, k)}\nspec:\n  flow: flow-${i}\n  package: pkg-${pkg}\n  state: ${state}\n` +
          (wave !== undefined ? `  wave: ${wave}\n` : ''),
      );
    }
    await writeFile(join(root, 'flows', `flow-${i}.yaml`), docs.join('---\n'));
  }
  return { dir: root, packages: shape.packages, flows: shape.flows, deployments: shape.flows * per };
}
