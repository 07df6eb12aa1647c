/**
 * `packsync run --listen` as a real process for agent tests: its /status and /metrics over HTTP,
 * a manual trigger, and "the next pass has finished" waits that poll state instead of sleeping.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import { parsePrometheus } from '../agent/prometheus.js';
import { freePort } from './port.js';
import { until as poll } from './poll.js';
import { spawnCli } from './spawn-cli.js';
import { tempDir } from './temp-dir.js';
import type { Spawned } from './spawn-cli.js';

/** `/status` as the agent serves it (JSON of `AgentStatus`). */
export type AgentStatusView = AgentStatus;

export interface RunningAgent {
  spawned: Spawned;
  base: string;
  status: () => Promise<AgentStatusView>;
  condition: (s: AgentStatusView, type: string) => AgentStatus['conditions'][number] | undefined;
  /** Triggers a pass and resolves with the status once that pass (or a later one) has finished. */
  reconcile: () => Promise<AgentStatusView>;
  /** Waits for a state of /status. */
  until: (what: string, probe: (s: AgentStatusView) => boolean, timeoutMs?: number) => Promise<AgentStatusView>;
  counter: (name: string, labels: Record<string, string>) => Promise<number>;
  stop: () => Promise<number | null>;
}

const SECRET = 'verify-test-secret-0123456789abcdef';

export interface SpawnAgentOptions {
  /** The webhook (and /reconcile) secret. */
  secret: string;
  /** Where its file is written; default a fresh temp folder (apart from the agent's state). */
  secretDir?: string;
  output?: 'pipe' | 'inherit';
}

export interface SpawnedAgent {
  spawned: Spawned;
  /** `http://127.0.0.1:<port>` it listens on. */
  base: string;
  secretFile: string;
  /** GET /status (throws while the agent is not listening yet). */
  status: () => Promise<AgentStatusView>;
}

/** `packsync run <args> --listen <a free port> --webhook-secret-file <secret>`, as its own process. */
export async function spawnAgent(args: string[], env: Record<string, string | undefined>, o: SpawnAgentOptions): Promise<SpawnedAgent> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const secretFile = join(o.secretDir ?? (await tempDir('packsync-agent-secret-')), `webhook-secret-${port}`);
  await writeFile(secretFile, `${o.secret}\n`, { mode: 0o600 });
  const spawned = spawnCli(['run', ...args, '--listen', `127.0.0.1:${port}`, '--webhook-secret-file', secretFile], env, o.output);
  const status = async (): Promise<AgentStatusView> => (await (await fetch(`${base}/status`)).json()) as AgentStatusView;
  return { spawned, base, secretFile, status };
}

export async function startAgent(args: string[], env: Record<string, string>, secretDir: string): Promise<RunningAgent> {
  const { spawned, base, status } = await spawnAgent([...args, '--log-format', 'json'], env, { secret: SECRET, secretDir });
  const until = (what: string, probe: (s: AgentStatusView) => boolean, timeoutMs = 30_000): Promise<AgentStatusView> => {
    let last: AgentStatusView | null = null;
    return poll(
      what,
      async () => {
        last = await status();
        return probe(last) ? last : undefined;
      },
      timeoutMs,
      {
        giveUp: async () =>
          spawned.child.exitCode !== null
            ? `agent exited (${spawned.child.exitCode}): ${(await spawned.done).stderr.slice(-2000)}`
            : undefined,
        detail: () => last,
      },
    );
  };
  const idle = (s: AgentStatusView): boolean => s.conditions.find((c) => c.type === 'Reconciling')?.status !== 'True';
  const reconcile = async (): Promise<AgentStatusView> => {
    const before = (await until('agent idle', idle)).passes;
    const res = await fetch(`${base}/reconcile`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}` } });
    if (res.status !== 202) throw new Error(`POST /reconcile answered ${res.status}`);
    return until('the triggered pass', (s) => s.passes > before && idle(s));
  };
  const counter = async (name: string, labels: Record<string, string>): Promise<number> => {
    // Only this family is parsed: prom-client prints "Nan" for a not-yet-sampled process gauge,
    // which the strict whole-document reader rejects and which is no concern of these tests.
    const text = await (await fetch(`${base}/metrics`)).text();
    const family = text
      .split('\n')
      .filter((l) => l.startsWith(`# TYPE ${name} `) || l.startsWith(`${name}{`) || l.startsWith(`${name} `))
      .join('\n');
    const m = parsePrometheus(family);
    return m.get(name)?.find((x) => Object.entries(labels).every(([k, v]) => x.labels[k] === v))?.value ?? 0;
  };
  const stop = async (): Promise<number | null> => {
    if (spawned.child.exitCode === null) spawned.child.kill('SIGTERM');
    return (await spawned.done).code;
  };
  return { spawned, base, status, condition: (s, type) => s.conditions.find((c) => c.type === type), reconcile, until, counter, stop };
}
