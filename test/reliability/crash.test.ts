/**
 * Crash safety: `packsync apply` (the built CLI, a real process) is killed with SIGKILL at random
 * points of a full converge of the small fleet (catalog imports, custom package with chunked
 * content, tenant upload, flows, deployments, a wave gate), then run again. Each cycle starts from
 * an empty account and state directory, kills the apply twice at random call counts, then lets it
 * finish. After every kill the inventory is readable and the service holds no duplicate; after
 * every cycle the state equals an uninterrupted converge's, no intent is left and a plan is empty.
 * Full run: 60 kill points (`PACKSYNC_CRASH_POINTS` overrides); default run: 12.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInventory } from '../../src/state/inventory-store.js';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { countBy, normalisePath, startTestSimulator } from '../support/sim.js';
import type { JournalEntry, TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';
import { count, report, sleep } from './support/env.js';
import { duplicates, normalise } from './support/state.js';

const POINTS = count(60, 12, 'PACKSYNC_CRASH_POINTS');
const KILLS_PER_CYCLE = 2;

/** What a kill interrupted, by kind of call: the last call the process had made. */
function kindOf(e: JournalEntry | undefined): string {
  if (!e) return 'before any call';
  return `${e.method} ${normalisePath(e.path)}`;
}

interface Kill {
  /** The call the process had made last, or null when it finished before the kill point. */
  hit: string | null;
  calls: number;
}

/** Starts `apply` and kills it once the journal has grown by `after` calls (unless it ends first). */
async function applyAndKill(sim: TestSim, repo: string, env: Record<string, string>, after: number): Promise<Kill> {
  const start = (await sim.journal()).length;
  const p = spawnCli(['apply', '--auto-approve', repo, '--log-level', 'silent'], env);
  let finished = false;
  void p.done.then(() => (finished = true));
  for (;;) {
    if (finished) return { hit: null, calls: (await sim.journal()).length - start };
    const j = await sim.journal();
    if (j.length - start >= after) {
      p.child.kill('SIGKILL');
      const end = await p.done;
      if (end.signal !== 'SIGKILL') return { hit: null, calls: j.length - start };
      const after2 = await sim.journal();
      return { hit: kindOf(after2[after2.length - 1]), calls: after2.length - start };
    }
    await sleep(2);
  }
}

describe('crash safety', () => {
  it(`converges with no duplicates after SIGKILL at ${POINTS} random points`, async () => {
    const sim = await startTestSimulator({ latencyMs: 10 });
    try {
      const repo = await writeRepo({ withCustom: true, wave: 2 });
      const envFor = (stateDir: string): Record<string, string> => ({
        PACKSYNC_API_URL: sim.url,
        PACKSYNC_API_KEY: sim.key,
        PACKSYNC_STATE_DIR: stateDir,
      });

      // The uninterrupted converge: its call count bounds the kill points, its state is the goal.
      const cleanDir = await tempDir('packsync-state-');
      const clean = await cli(['apply', '--auto-approve', repo], envFor(cleanDir));
      expect(clean.code, clean.stdout + clean.stderr).toBe(0);
      const fullCalls = (await sim.journal()).length;
      const goal = normalise(await sim.state());
      expect(goal.flows).toHaveLength(2);
      expect(goal.deployments).toHaveLength(2);
      expect(goal.uploads).toHaveLength(1);

      let seed = 20260105;
      const rand = (n: number): number => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return 1 + (seed % n);
      };
      const hits: Record<string, number> = {};
      let points = 0;
      let cycles = 0;
      let misses = 0;
      while (points < POINTS) {
        cycles++;
        await sim.admin('POST', '/_sim/reset');
        const stateDir = await tempDir('packsync-state-');
        const env = envFor(stateDir);
        for (let k = 0; k < KILLS_PER_CYCLE && points < POINTS; k++) {
          const kill = await applyAndKill(sim, repo, env, rand(fullCalls));
          if (kill.hit === null) {
            misses++;
            break;
          }
          points++;
          hits[kill.hit] = (hits[kill.hit] ?? 0) + 1;
          // Whatever the moment of the kill, the inventory is whole and the service has no duplicate.
          JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8').catch(() => '{}'));
          await expect(loadInventory(stateDir)).resolves.toBeDefined();
          expect(duplicates(await sim.state())).toEqual([]);
        }
        const final = await cli(['apply', '--auto-approve', repo], env);
        expect(final.code, `cycle ${cycles}: ${final.stdout}${final.stderr}`).toBe(0);
        expect(final.stdout).toMatch(/Apply complete|No changes/);
        const state = await sim.state();
        expect(duplicates(state)).toEqual([]);
        expect(normalise(state), `cycle ${cycles} ends where an uninterrupted converge ends`).toEqual(goal);
        expect(Object.keys((await loadInventory(stateDir)).intents)).toEqual([]);
        const again = await cli(['plan', repo, '--detailed-exitcode'], env);
        expect(again.code, again.stdout).toBe(0);
      }
      const writes = Object.entries(hits)
        .filter(([k]) => !k.startsWith('GET'))
        .reduce((n, [, v]) => n + v, 0);
      expect(Object.keys(hits).length, 'kills land on several kinds of call').toBeGreaterThan(2);
      expect(writes, 'some kills land right after a write').toBeGreaterThan(0);
      await report('crash', {
        points,
        cycles,
        finishedBeforeKill: misses,
        callsPerConverge: fullCalls,
        afterWrite: writes,
        hitsByCall: Object.fromEntries(Object.entries(hits).sort(([, a], [, b]) => b - a)),
        hitsByMethod: countBy(Object.entries(hits).flatMap(([k, v]) => Array.from({ length: v }, () => k.split(' ')[0]!))),
      });
    } finally {
      await sim.close();
    }
  });
});
