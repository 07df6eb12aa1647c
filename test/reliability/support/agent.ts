/** The agent loop in-process over a directory source, as `packsync run --source DIR` builds it. */
import { pino } from 'pino';
import { Agent } from '../../../src/agent/loop.js';
import { createMetrics } from '../../../src/agent/http/metrics.js';
import type { AgentMetrics } from '../../../src/agent/http/metrics.js';
import { StatusTracker } from '../../../src/agent/http/status.js';
import { createApiClient } from '../../../src/api/client.js';
import type { ApiClient, ApiClientOptions } from '../../../src/api/client.js';
import { DEFAULT_PLAN_OPTIONS } from '../../../src/plan/types.js';
import { tempDir } from '../../support/repo.js';

export interface TestAgent {
  agent: Agent;
  status: StatusTracker;
  metrics: AgentMetrics;
  api: ApiClient;
  stateDir: string;
  /** Triggers one pass and waits for the loop to be idle again. */
  pass: (reason?: string) => Promise<void>;
  close: () => Promise<void>;
}

export interface TestAgentOptions {
  url: string;
  key: string;
  dir: string;
  client?: Partial<ApiClientOptions>;
  passTimeoutMs?: number;
}

export async function startAgent(o: TestAgentOptions): Promise<TestAgent> {
  const api = createApiClient({ baseUrl: o.url, apiKey: o.key, concurrency: 8, ...o.client });
  const stateDir = await tempDir('packsync-agent-state-');
  const status = new StatusTracker({ source: o.dir, ref: '', path: '' });
  const metrics = createMetrics(false);
  const agent = new Agent({
    source: { sync: () => Promise.resolve({ dir: o.dir, revision: null, label: o.dir }), ref: null },
    api,
    stateDir,
    planOptions: DEFAULT_PLAN_OPTIONS,
    concurrency: 8,
    wait: { intervalMs: 50, maxIntervalMs: 400 },
    logger: pino({ level: 'silent' }),
    metrics,
    status,
    passTimeoutMs: o.passTimeoutMs ?? 120_000,
    // Passes run only when a test triggers one: no requeue or retry timer fires between cases.
    waitingRequeueMs: 3_600_000,
    backoff: { baseMs: 3_600_000, maxMs: 3_600_000 },
  });
  let n = 0;
  return {
    agent,
    status,
    metrics,
    api,
    stateDir,
    pass: async (reason) => {
      // The loop wakes idle waiters after every pass, whatever its result (a retry timer set after
      // a failure is not a queued pass).
      agent.trigger(reason ?? `test pass ${++n}`);
      await agent.idle();
    },
    close: async () => {
      await agent.stop();
      await api.close();
    },
  };
}
