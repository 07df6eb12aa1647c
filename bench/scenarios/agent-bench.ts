/**
 * What the agent scenarios (commit-latency, stop-latency) share: a working repository pushed to a
 * bare one served over file://, `packsync run` in its own process following it with a webhook
 * secret, and the calls that time a push: edit, commit, push, signed webhook, watch the journal.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import { signBody } from '../../src/agent/http/webhook.js';
import { loadInventory } from '../../src/state/inventory-store.js';
import { git } from '../../test/support/git.js';
import { spawnAgent } from '../../test/support/agent-process.js';
import type { JournalEntry, TestSim } from '../../test/support/sim.js';
import { tempDir } from '../../test/support/temp-dir.js';
import type { ScenarioArgs } from './types.js';

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
}

/** Sets `state:` of one deployment document inside a multi-document file. */
export function setState(text: string, name: string, state: string): string {
  const docs = text.split('---\n');
  const i = docs.findIndex((d) => d.includes(`\n  name: ${name}\n`));
  if (i < 0) throw new Error(`no document named ${name}`);
  docs[i] = docs[i]!.replace(/\n {2}state: \w+\n/, `\n  state: ${state}\n`);
  return docs.join('---\n');
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * `--runs` and `--flows` of an agent scenario (whole numbers >= 1), and the fleet they ask for:
 * five deployments a flow, two packages a flow rounded up to whole apps, at least five.
 */
export function agentFleetArgs(
  args: ScenarioArgs,
  defaults: { runs: number; flows: number },
): { runs: number; flows: number; shape: { flows: number; deploymentsPerFlow: number; packages: number } } {
  const runs = Number(args.runs ?? defaults.runs);
  const flows = Number(args.flows ?? defaults.flows);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number >= 1');
  if (!Number.isInteger(flows) || flows < 1) throw new Error('--flows must be a whole number >= 1');
  return { runs, flows, shape: { flows, deploymentsPerFlow: 5, packages: Math.max(5, Math.ceil((flows * 2) / 5) * 5) } };
}

/** The service id of Deployment `name` in the agent's inventory (snapshot and journal: a large state's last passes may not be folded yet). */
export async function deploymentId(stateDir: string, name: string): Promise<string> {
  const inv = await loadInventory(stateDir);
  const id = inv.objects[`Deployment/${name}`]?.id;
  if (!id) throw new Error(`${name} is not in the agent's inventory`);
  return id;
}

/** Sets `state:` of Deployment `name` in `file` of the working repository `work` and commits it (not pushed); returns the commit. */
export async function commitState(work: string, file: string, name: string, state: string): Promise<string> {
  const path = join(work, file);
  await writeFile(path, setState(await readFile(path, 'utf8'), name, state));
  await git(work, 'commit', '-q', '-am', `${name}: ${state}`);
  return git(work, 'rev-parse', 'HEAD');
}

/** The simulator's write journal (status 0: a call still in flight, recorded before its answer). */
export const lastSeq = async (sim: Pick<TestSim, 'journal'>): Promise<number> =>
  (await sim.journal(true)).reduce((n, e) => Math.max(n, e.seq), 0);

/** Polls the journal until a write matching `match` appears after `seen`; returns the ms since `t0`. */
export async function writeSeen(
  sim: Pick<TestSim, 'journal'>,
  seen: number,
  match: (e: JournalEntry) => boolean,
  t0: number,
  timeoutMs: number,
  what: string,
): Promise<number> {
  for (const until = Date.now() + timeoutMs; Date.now() < until;) {
    if ((await sim.journal(true)).some((e) => e.seq > seen && match(e))) return performance.now() - t0;
    await sleep(10);
  }
  throw new Error(`${what} did not appear within ${timeoutMs} ms`);
}

/** The part of the agent's /status the scenarios read. */
export type AgentStatusView = Pick<AgentStatus, 'lastAppliedRevision' | 'conditions' | 'history'>;

export interface BenchAgent {
  url: string;
  stateDir: string;
  status: () => Promise<AgentStatusView | null>;
  /** Resolves when `sha` is the last applied revision; throws when its pass ended otherwise. */
  waitApplied: (sha: string, timeoutMs: number) => Promise<void>;
  /** Applied and nothing left waiting on the service (Reconciling=False after the pass). */
  waitConverged: (sha: string, timeoutMs: number) => Promise<void>;
  /** Signed GitHub push webhook for `main`. */
  webhook: () => Promise<void>;
  /** `POST /reconcile` with the webhook secret. */
  reconcile: () => Promise<void>;
  stop: () => Promise<void>;
}

/** Commits `work` as `main`, pushes it to a bare origin and starts `packsync run` following it. */
export async function startBenchAgent(sim: Pick<TestSim, 'url' | 'key'>, work: string, extraArgs: string[] = []): Promise<BenchAgent> {
  const tmp = await tempDir('packsync-agent-bench-');
  const origin = join(tmp, 'origin.git');
  await git(tmp, 'init', '-q', '--bare', '-b', 'main', origin);
  await git(work, 'init', '-q', '-b', 'main');
  await git(work, 'add', '-A');
  await git(work, 'commit', '-q', '-m', 'initial');
  await git(work, 'remote', 'add', 'origin', origin);
  await git(work, 'push', '-q', 'origin', 'main');

  const secret = 'bench-webhook-secret-0123456789';
  const keyFile = join(tmp, 'api-key');
  await writeFile(keyFile, `${sim.key}\n`, { mode: 0o600 });
  const stateDir = join(tmp, 'state');
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('PACKSYNC_')) delete env[k];
  const { spawned, base: url } = await spawnAgent(
    [
      '--source',
      `file://${origin}`,
      '--ref',
      'main',
      '--log-level',
      'warn',
      '--api-url',
      sim.url,
      '--api-key-file',
      keyFile,
      '--state-dir',
      stateDir,
      ...extraArgs,
    ],
    env,
    { secret, secretDir: tmp, output: 'inherit' },
  );
  const status = async (): Promise<AgentStatusView | null> => {
    try {
      const r = await fetch(`${url}/status`);
      return r.ok ? ((await r.json()) as AgentStatusView) : null;
    } catch {
      return null;
    }
  };
  const post = async (path: string, headers: Record<string, string>, body: string): Promise<void> => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers, body });
    if (res.status !== 200 && res.status !== 202) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  const body = JSON.stringify({ ref: 'refs/heads/main' });
  const waitFor = async (sha: string, timeoutMs: number, converged: boolean): Promise<void> => {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const s = await status();
      const idle = s?.conditions.find((c) => c.type === 'Reconciling')?.status === 'False';
      if (s?.lastAppliedRevision === sha && (!converged || idle)) return;
      const failed = s?.history.find((h) => h.revision === sha && h.result !== 'Succeeded');
      if (failed) throw new Error(`the agent's pass for ${sha} ended ${failed.result}`);
      await sleep(50);
    }
    throw new Error(`the agent did not ${converged ? 'converge' : 'apply'} ${sha} within ${timeoutMs} ms`);
  };
  return {
    url,
    stateDir,
    status,
    waitApplied: (sha, timeoutMs) => waitFor(sha, timeoutMs, false),
    waitConverged: (sha, timeoutMs) => waitFor(sha, timeoutMs, true),
    webhook: () =>
      post(
        '/webhook',
        { 'content-type': 'application/json', 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': signBody(secret, body) },
        body,
      ),
    reconcile: () => post('/reconcile', { authorization: `Bearer ${secret}` }, ''),
    stop: async () => {
      if (spawned.child.exitCode !== null) return;
      spawned.child.kill('SIGTERM');
      await spawned.done;
    },
  };
}
