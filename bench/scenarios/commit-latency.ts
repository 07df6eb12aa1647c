/**
 * commit-latency: git push → signed webhook → the change visible in the service. A bare repository
 * in a temp dir served over file://, the agent (`packsync run`) in its own process against the
 * simulator in another (20 ms latency, time x3600). Each run flips one Deployment's `state`
 * (stopped ↔ running) in a clone, commits, then times push + webhook until the simulator's journal
 * shows the start/stop call for that deployment. The clock starts just before `git push`.
 *
 * The edited deployment starts `stopped` (added, never started): each start restarts its wave clock,
 * so with one-second runs it never reaches Completed (where neither start nor stop applies).
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createApiClient } from '../../src/api/client.js';
import { signBody } from '../../src/agent/webhook.js';
import { CLI, fleetApps, freePort, startExternalSim, writeFleetRepo } from '../support.js';
import type { Scenario } from './types.js';
import { round } from './types.js';

const run = promisify(execFile);
const LATENCY_MS = 20;
const TARGET = 'dep-0-0';
const TARGET_FILE = join('flows', 'flow-0.yaml');

async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };
  return (await run('git', args, { cwd, env })).stdout.trim();
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
}

/** Sets `state:` of one deployment document inside a multi-document file. */
function setState(text: string, name: string, state: string): string {
  const docs = text.split('---\n');
  const i = docs.findIndex((d) => d.includes(`\n  name: ${name}\n`));
  if (i < 0) throw new Error(`no document named ${name}`);
  docs[i] = docs[i]!.replace(/\n {2}state: \w+\n/, `\n  state: ${state}\n`);
  return docs.join('---\n');
}

/** The part of the agent's /status this scenario reads. */
interface AgentStatusView {
  lastAppliedRevision: string | null;
  history: { revision: string | null; result: string; durationMs: number }[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const commitLatency: Scenario = async (log, args) => {
  const runs = Number(args.runs ?? 20);
  const flows = Number(args.flows ?? 50);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number >= 1');
  if (!Number.isInteger(flows) || flows < 1) throw new Error('--flows must be a whole number >= 1');
  const shape = { flows, deploymentsPerFlow: 5, packages: Math.max(5, Math.ceil((flows * 2) / 5) * 5), states: { [TARGET]: 'stopped' as const } };
  const sim = await startExternalSim(['--fleet', 'large', '--latency', String(LATENCY_MS), '--time-scale', '3600']);
  const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
  let agent: ChildProcess | undefined;
  try {
    const work = await writeFleetRepo(await fleetApps(api, shape.packages / shape.deploymentsPerFlow), shape);
    const tmp = await mkdtemp(join(tmpdir(), 'packsync-commit-'));
    const origin = join(tmp, 'origin.git');
    await git(tmp, 'init', '-q', '--bare', '-b', 'main', origin);
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'add', '-A');
    await git(work, 'commit', '-q', '-m', 'fleet');
    await git(work, 'remote', 'add', 'origin', origin);
    await git(work, 'push', '-q', 'origin', 'main');

    const secret = 'bench-webhook-secret-0123456789';
    const secretFile = join(tmp, 'webhook-secret');
    const keyFile = join(tmp, 'api-key');
    await writeFile(secretFile, `${secret}\n`, { mode: 0o600 });
    await writeFile(keyFile, `${sim.key}\n`, { mode: 0o600 });
    const stateDir = join(tmp, 'state');
    const port = await freePort();
    const agentUrl = `http://127.0.0.1:${port}`;
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('PACKSYNC_')) delete env[k];
    agent = spawn(
      process.execPath,
      [
        CLI, 'run', '--source', `file://${origin}`, '--ref', 'main', '--listen', `127.0.0.1:${port}`, '--webhook-secret-file', secretFile,
        '--log-level', 'warn', '--api-url', sim.url, '--api-key-file', keyFile, '--state-dir', stateDir,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], env },
    );
    const status = async (): Promise<AgentStatusView | null> => {
      try {
        const r = await fetch(`${agentUrl}/status`);
        return r.ok ? ((await r.json()) as AgentStatusView) : null;
      } catch {
        return null;
      }
    };
    const waitApplied = async (sha: string, timeoutMs: number): Promise<void> => {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        const s = await status();
        if (s?.lastAppliedRevision === sha) return;
        const failed = s?.history.find((h) => h.revision === sha && h.result !== 'Succeeded');
        if (failed) throw new Error(`the agent's pass for ${sha} ended ${failed.result}`);
        await sleep(50);
      }
      throw new Error(`the agent did not apply ${sha} within ${timeoutMs} ms`);
    };
    log(`converging ${flows} flows, ${flows * 5} deployments, ${shape.packages} packages through the agent (not timed)…`);
    await waitApplied(await git(work, 'rev-parse', 'HEAD'), 150_000);
    const inv = JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as { objects: Record<string, { id: string }> };
    const id = inv.objects[`Deployment/${TARGET}`]?.id;
    if (!id) throw new Error(`${TARGET} is not in the agent's inventory`);

    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const headers = { 'content-type': 'application/json', 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': signBody(secret, body) };
    const times: number[] = [];
    const pushes: number[] = [];
    const passes: number[] = [];
    let state = 'stopped';
    for (let r = 0; r < runs; r++) {
      state = state === 'stopped' ? 'running' : 'stopped';
      const want = `/v1/flow/deployment/${id}/${state === 'running' ? 'start' : 'stop'}`;
      const file = join(work, TARGET_FILE);
      await writeFile(file, setState(await readFile(file, 'utf8'), TARGET, state));
      await git(work, 'commit', '-q', '-am', `${TARGET}: ${state}`);
      const sha = await git(work, 'rev-parse', 'HEAD');
      const seen = ((await sim.admin('GET', '/_sim/journal?writes=true')) as { seq: number }[]).reduce((n, e) => Math.max(n, e.seq), 0);

      const t0 = performance.now();
      await git(work, 'push', '-q', 'origin', 'main');
      pushes.push(performance.now() - t0);
      const hook = await fetch(`${agentUrl}/webhook`, { method: 'POST', headers, body });
      if (hook.status !== 200 && hook.status !== 202) throw new Error(`webhook answered ${hook.status}: ${await hook.text()}`);
      await hook.arrayBuffer();
      let ms = -1;
      for (const until = Date.now() + 30_000; Date.now() < until; ) {
        const writes = (await sim.admin('GET', '/_sim/journal?writes=true')) as { seq: number; path: string; status: number }[];
        if (writes.some((e) => e.seq > seen && e.path === want && e.status < 300)) {
          ms = performance.now() - t0;
          break;
        }
        await sleep(10);
      }
      if (ms < 0) throw new Error(`run ${r + 1}: ${want} did not appear within 30 s`);
      times.push(ms);
      log(`run ${r + 1}: ${state === 'running' ? 'start' : 'stop'} visible after ${round(ms)} ms`);
      // Let the pass finish (record, status) so the next push does not queue behind it.
      await waitApplied(sha, 30_000);
      const pass = (await status())?.history.find((h) => h.revision === sha);
      if (pass) passes.push(pass.durationMs);
    }
    const p50 = percentile(times, 50);
    const p95 = percentile(times, 95);
    log(`commit → change visible: p50 ${round(p50)} ms, p95 ${round(p95)} ms over ${runs} runs`);
    const pushP50 = percentile(pushes, 50);
    const passP50 = percentile(passes, 50);
    log(`of which: git push p50 ${round(pushP50)} ms; the agent's whole pass (fetch, load, read, plan, apply, record) p50 ${round(passP50)} ms`);
    return {
      metrics: { p50Ms: round(p50), p95Ms: round(p95), maxMs: round(Math.max(...times)), runs, flows, pushP50Ms: round(pushP50), passP50Ms: round(passP50) },
      baseline: {},
    };
  } finally {
    if (agent && agent.exitCode === null) {
      const child = agent;
      await new Promise<void>((resolve) => {
        child.once('close', () => resolve());
        child.kill('SIGTERM');
      });
    }
    await api.close();
    await sim.stop();
  }
};
