/** Shared pieces of the benchmarks: a simulator in its own process, and generated fleets. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PacksyncApi } from '../src/api/operations.js';
import { simulatorAdmin } from '../src/simulator/admin-client.js';
import { until } from '../test/support/poll.js';
import { freePort } from '../test/support/port.js';
import { tempDir } from '../test/support/temp-dir.js';

export const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
export const RUN = fileURLToPath(new URL('./run.js', import.meta.url));

/**
 * The V8 heap limits the shipped agent manifests set (`NODE_OPTIONS` in
 * deploy/kubernetes/agent-git.yaml and sidecar-git-sync.yaml, next to their 256 MiB memory limit;
 * test/deploy/heap-options.test.ts keeps them equal). Without a limit V8 sizes the heap from the
 * host's memory and lets garbage pile up far past what is live (fleet-10x: 479 MiB RSS for under
 * 130 MiB live), which in a 256 MiB container is an OOM kill.
 */
export const AGENT_NODE_OPTIONS = '--max-old-space-size=128 --max-semi-space-size=4';

export interface ExternalSim {
  url: string;
  key: string;
  child: ChildProcess;
  admin: (method: string, path: string, body?: unknown) => Promise<unknown>;
  journalLength: () => Promise<number>;
  stop: () => Promise<void>;
}

/** The simulator in a child process, so the benchmark's RSS is packsync's alone. */
export async function startExternalSim(args: string[]): Promise<ExternalSim> {
  const port = await freePort();
  const key = randomBytes(12).toString('hex');
  const child = spawn(process.execPath, [CLI, 'simulator', '--port', String(port), '--api-key', key, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const admin = simulatorAdmin(url, key);
  // A simulator that never answers fails the benchmark here instead of at its first call.
  await until('the simulator to start', async () => (await admin('GET', '/_sim/clock'), true), 10_000, {
    intervalMs: 50,
    giveUp: () => (child.exitCode !== null ? `the simulator exited with ${child.exitCode}` : undefined),
  });
  return {
    url,
    key,
    child,
    admin,
    journalLength: async () => ((await admin('GET', '/_sim/journal?count=true')) as { count: number }).count,
    stop: () =>
      new Promise((resolve) => {
        child.once('close', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface FleetShape {
  flows: number;
  deploymentsPerFlow: number;
  packages: number;
  /** Deployment states by name (e.g. `{ 'dep-0-0': 'stopped' }`); else every fifth is pending, the rest running. */
  states?: Record<string, DeploymentState>;
  /** A patch group id for every flow (its waves instead of the service's one default wave). */
  patchGroup?: string;
}

export type DeploymentState = 'pending' | 'running' | 'stopped';

/**
 * Catalog import variants of one app: each is a distinct live package (version × installer scope,
 * then a script template on top).
 */
const VARIANTS: { version: 0 | 1; scope: 'machine' | 'user'; template?: string }[] = [
  { version: 0, scope: 'machine' },
  { version: 0, scope: 'user' },
  { version: 1, scope: 'machine' },
  { version: 1, scope: 'user' },
  { version: 0, scope: 'machine', template: 'PSADT 4.0 (silent)' },
  { version: 1, scope: 'machine', template: 'PSADT 4.0 (silent)' },
];

/**
 * Writes a desired set over catalog apps. A flow belongs to one app (the manifest rules require
 * `app` or `package`, and the service only adds versions of the flow's app), and a deployment is
 * identified by (flow, package), so a flow's deployments are distinct packages of its app: each app
 * gives `deploymentsPerFlow` packages (its two catalog versions × installer scopes, then a script template), `packages /
 * deploymentsPerFlow` apps in all, and flow i follows app i mod that. `flows` flows, each with
 * `deploymentsPerFlow` deployments; every fifth deployment stays pending.
 */
export async function writeFleetRepo(apps: AppLike[], shape: FleetShape): Promise<string> {
  const per = shape.deploymentsPerFlow;
  if (per < 1 || per > VARIANTS.length) throw new Error(`deploymentsPerFlow must be 1..${VARIANTS.length}`);
  if (shape.packages % per !== 0) throw new Error(`packages (${shape.packages}) must be a multiple of deploymentsPerFlow (${per})`);
  const appCount = shape.packages / per;
  const dir = await tempDir('packsync-fleet-');
  await mkdir(join(dir, 'packages'));
  await mkdir(join(dir, 'flows'));
  const seen = new Map<string, number>();
  for (const a of apps) seen.set(a.name.toLowerCase(), (seen.get(a.name.toLowerCase()) ?? 0) + 1);
  // Names that resolve uniquely, with two catalog versions.
  const usable = apps.filter((a) => seen.get(a.name.toLowerCase()) === 1 && (a.versions?.length ?? 2) >= 2);
  if (usable.length < appCount) throw new Error(`fleet needs ${appCount} distinct apps, the catalog has ${usable.length}`);
  const pkgDocs: string[] = [];
  for (let i = 0; i < appCount; i++) {
    const a = usable[i]!;
    for (let k = 0; k < per; k++) {
      const v = VARIANTS[k]!;
      const version = a.versions?.[v.version] ?? (v.version === 0 ? a.latestVersion : undefined);
      pkgDocs.push(
        `apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: pkg-${i * per + k}\nspec:\n  catalog:\n    app: ${JSON.stringify(a.name)}\n` +
          (version !== undefined ? `    version: ${JSON.stringify(version)}\n` : '') +
          `    scope: ${v.scope}\n` +
          (v.template ? `    scriptTemplate: ${JSON.stringify(v.template)}\n` : ''),
      );
    }
  }
  // 50 packages a file: many files, as a real repository would have.
  for (let f = 0; f * 50 < pkgDocs.length; f++)
    await writeFile(join(dir, 'packages', `p${f}.yaml`), pkgDocs.slice(f * 50, f * 50 + 50).join('---\n'));
  for (let i = 0; i < shape.flows; i++) {
    const app = i % appCount;
    const group = shape.patchGroup ? `  patchGroup: ${shape.patchGroup}\n` : '';
    const docs = [
      `apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: flow-${i}\nspec:\n  name: Fleet flow ${i}\n  app: ${JSON.stringify(usable[app]!.name)}\n${group}`,
    ];
    for (let k = 0; k < per; k++)
      docs.push(deploymentDoc(i, k, app * per + k, shape.states?.[`dep-${i}-${k}`] ?? (k % 5 === 4 ? 'pending' : 'running')));
    await writeFile(join(dir, 'flows', `flow-${i}.yaml`), docs.join('---\n'));
  }
  return dir;
}

/** The first `count` uniquely named catalog apps with their versions (one getApp each; not timed). */
export async function fleetApps(api: PacksyncApi, count: number): Promise<AppLike[]> {
  const list = (await api.searchApps({ disablePaging: true })).items;
  const seen = new Map<string, number>();
  for (const a of list) seen.set(a.name.toLowerCase(), (seen.get(a.name.toLowerCase()) ?? 0) + 1);
  const out: AppLike[] = [];
  for (const a of list) {
    if (out.length >= count) break;
    if (seen.get(a.name.toLowerCase()) !== 1) continue;
    const d = await api.getApp(a.id);
    if (d.versions.length < 2) continue;
    out.push({ name: a.name, latestVersion: a.latestVersion, versions: d.versions.map((v) => v.version) });
  }
  return out;
}

export interface AppLike {
  name: string;
  latestVersion: string;
  /** Catalog versions, newest first, when known (the search list has only `latestVersion`). */
  versions?: string[];
}

export function deploymentDoc(flow: number, k: number, pkg: number, state: DeploymentState): string {
  return `apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: dep-${flow}-${k}\nspec:\n  flow: flow-${flow}\n  package: pkg-${pkg}\n  state: ${state}\n`;
}

export const rssMiB = (): number => Math.round((process.memoryUsage().rss / 1048576) * 10) / 10;
