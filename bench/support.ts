/** Shared pieces of the benchmarks: a simulator in its own process, and generated fleets. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

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
  const child = spawn(process.execPath, [CLI, 'simulator', '--port', String(port), '--api-key', key, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`${url}/_sim/clock`, { headers: { 'X-API-Key': key } });
      if (r.ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const admin = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'X-API-Key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  return {
    url,
    key,
    child,
    admin,
    journalLength: async () => ((await admin('GET', '/_sim/journal')) as unknown[]).length,
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
}

/**
 * Writes a desired set over catalog apps: `packages` catalog packages (one per app, its latest
 * version), `flows` empty flows, each with `deploymentsPerFlow` deployments of distinct packages.
 */
export async function writeFleetRepo(apps: { name: string; latestVersion: string }[], shape: FleetShape): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'packsync-fleet-'));
  await mkdir(join(dir, 'packages'));
  await mkdir(join(dir, 'flows'));
  const names = new Map<string, number>();
  const usable = apps.filter((a) => {
    const k = a.name.toLowerCase();
    names.set(k, (names.get(k) ?? 0) + 1);
    return true;
  }).filter((a) => names.get(a.name.toLowerCase()) === 1);
  if (usable.length < shape.packages) throw new Error(`fleet needs ${shape.packages} distinct apps, the catalog has ${usable.length}`);
  const pkgDocs: string[] = [];
  for (let i = 0; i < shape.packages; i++) {
    const a = usable[i]!;
    pkgDocs.push(`apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: pkg-${i}\nspec:\n  catalog:\n    app: ${JSON.stringify(a.name)}\n    version: ${JSON.stringify(a.latestVersion)}\n`);
  }
  // 50 packages a file: many files, as a real repository would have.
  for (let f = 0; f * 50 < pkgDocs.length; f++) await writeFile(join(dir, 'packages', `p${f}.yaml`), pkgDocs.slice(f * 50, f * 50 + 50).join('---\n'));
  for (let i = 0; i < shape.flows; i++) {
    const docs = [`apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: flow-${i}\nspec:\n  name: Fleet flow ${i}\n`];
    for (let k = 0; k < shape.deploymentsPerFlow; k++) {
      const p = (i * 2 + k) % shape.packages;
      docs.push(`apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: dep-${i}-${k}\nspec:\n  flow: flow-${i}\n  package: pkg-${p}\n  state: ${k % 5 === 4 ? 'pending' : 'running'}\n`);
    }
    await writeFile(join(dir, 'flows', `flow-${i}.yaml`), docs.join('---\n'));
  }
  return dir;
}

export const rssMiB = (): number => Math.round((process.memoryUsage().rss / 1048576) * 10) / 10;
