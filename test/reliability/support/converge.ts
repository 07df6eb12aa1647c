/**
 * Converging a repository in-process with `reconcile` (the pass every entry point shares), pass
 * after pass until a pass finds nothing to do, recording every HTTP attempt the client makes.
 */
import { createApiClient } from '../../../src/api/client.js';
import type { RequestEvent } from '../../../src/api/client.js';
import { reconcile } from '../../../src/engine/reconcile.js';
import { DEFAULT_PLAN_OPTIONS } from '../../../src/plan/types.js';
import { tempDir } from '../../support/temp-dir.js';

export interface ConvergeResult {
  ms: number;
  /** Passes run, the final no-op pass included. */
  passes: number;
  converged: boolean;
  /** Every attempt of every request, in the order they ended. */
  events: RequestEvent[];
  /** Failures of the passes before convergence, `code: message` (for diagnosis). */
  failures: string[];
  stateDir: string;
}

export interface ConvergeOptions {
  concurrency?: number;
  maxPasses?: number;
  stateDir?: string;
}

export async function converge(url: string, key: string, repo: string, o: ConvergeOptions = {}): Promise<ConvergeResult> {
  const events: RequestEvent[] = [];
  const concurrency = o.concurrency ?? 16;
  const api = createApiClient({ baseUrl: url, apiKey: key, concurrency, onRequest: (e) => events.push(e) });
  const stateDir = o.stateDir ?? (await tempDir('packsync-rel-state-'));
  const failures: string[] = [];
  const t0 = performance.now();
  let passes = 0;
  let converged = false;
  try {
    while (passes < (o.maxPasses ?? 8)) {
      passes++;
      // A pass whose live read gives up (five faulty attempts in a row) fails as a whole, as the
      // agent's does; the next pass starts over, as the agent's backoff would.
      const out = await reconcile({
        path: repo,
        api,
        stateDir,
        planOptions: DEFAULT_PLAN_OPTIONS,
        apply: true,
        readConcurrency: concurrency,
        applyOptions: { concurrency, wait: { intervalMs: 50, maxIntervalMs: 400 } },
      }).catch((e: unknown) => {
        failures.push(`pass ${passes}: ${e instanceof Error ? e.message : String(e)}`);
        return null;
      });
      if (out === null) continue;
      if (out.kind === 'invalid')
        throw new Error(
          `the repository is invalid: ${out.problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.message}`).join('; ')}`,
        );
      const r = out.result;
      if (out.plan.errors.length > 0) failures.push(...out.plan.errors);
      for (const f of r?.objects.filter((x) => x.outcome === 'failed') ?? [])
        failures.push(`${f.key}: ${f.error?.code ?? ''} ${f.error?.message ?? ''}`);
      if (r && r.failed === 0 && r.writes === 0 && out.plan.errors.length === 0 && !out.plan.objects.some((x) => x.change === 'waiting')) {
        converged = true;
        break;
      }
    }
  } finally {
    await api.close();
  }
  return { ms: performance.now() - t0, passes, converged, events, failures, stateDir };
}
