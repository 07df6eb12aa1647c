/**
 * One writer per state (docs/reconcile.md), with real processes: the built CLI holds `<state-dir>/lock`
 * while `apply` runs; a second apply or agent exits 1 naming the holder; `plan` reads without the
 * lock; a lock left by a dead process is taken over with a warning; SIGTERM and SIGINT release it.
 * The simulator runs at real-time speed (package processing takes half a minute), so the first apply
 * is still running when the others start; its clock is then advanced to let the apply finish.
 */
import { spawnSync } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { finishAdvancing, spawnCli } from '../support/spawn-cli.js';
import type { Spawned } from '../support/spawn-cli.js';

let sim: TestSim;
let repo: string;

beforeAll(async () => {
  sim = await startTestSimulator({ timeScale: 1, latencyMs: 20 });
  repo = await writeRepo();
});
afterAll(async () => {
  await sim.close();
});

const exists = (f: string): Promise<boolean> =>
  access(f).then(
    () => true,
    () => false,
  );
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function startApply(stateDir: string): Promise<Spawned> {
  const p = spawnCli(['apply', '--auto-approve', repo, '--log-level', 'silent'], {
    PACKSYNC_API_URL: sim.url,
    PACKSYNC_API_KEY: sim.key,
    PACKSYNC_STATE_DIR: stateDir,
  });
  // Held once the lock file names this process, and running once it made its first write.
  for (let i = 0; i < 400; i++) {
    const text = await readFile(join(stateDir, 'lock'), 'utf8').catch(() => '');
    if (text.includes(`"pid":${p.child.pid}`) && (await exists(join(stateDir, 'journal.jsonl')))) return p;
    await sleep(25);
  }
  p.child.kill('SIGKILL');
  throw new Error(`apply never took the lock: ${(await p.done).stderr}`);
}

const finish = (p: Spawned): ReturnType<typeof finishAdvancing> => finishAdvancing(p, sim);

const env = (stateDir: string): Record<string, string> => ({
  PACKSYNC_API_URL: sim.url,
  PACKSYNC_API_KEY: sim.key,
  PACKSYNC_STATE_DIR: stateDir,
});

describe('state lock', () => {
  it('refuses a second apply and an agent on the same state, naming the holder; plan still reads', async () => {
    await sim.admin('POST', '/_sim/reset');
    const stateDir = await tempDir('packsync-lock-');
    const first = await startApply(stateDir);
    const lock = JSON.parse(await readFile(join(stateDir, 'lock'), 'utf8')) as { pid: number; host: string; since: string };
    expect(lock).toMatchObject({ pid: first.child.pid, host: hostname() });

    const second = await spawnCli(['apply', '--auto-approve', repo], env(stateDir)).done;
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('STATE_LOCKED');
    expect(second.stderr).toContain(`pid ${first.child.pid} on host ${hostname()} since ${lock.since}`);

    const agent = await spawnCli(['run', '--source', repo, '--once', '--log-level', 'silent'], env(stateDir)).done;
    expect(agent.code).toBe(1);
    expect(agent.stderr).toContain(`STATE_LOCKED: the state directory ${stateDir} is locked by pid ${first.child.pid}`);

    // plan takes no lock: it reads the state as it stands.
    const plan = await spawnCli(['plan', repo, '--log-level', 'silent'], env(stateDir)).done;
    expect(plan.stderr).not.toContain('STATE_LOCKED');
    expect([0, 1]).toContain(plan.code);

    const done = await finish(first);
    expect(done.code, done.stderr).toBe(0);
    expect(await exists(join(stateDir, 'lock'))).toBe(false);
    // Free again: the next apply runs and finds nothing to do.
    const again = await spawnCli(['apply', '--auto-approve', repo], env(stateDir)).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/No changes/);
  }, 120_000);

  it('takes over a lock whose process is gone (same host) with a warning, and refuses one of another host that renews its lease', async () => {
    await sim.admin('POST', '/_sim/reset');
    const stateDir = await tempDir('packsync-lock-');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    await writeFile(
      join(stateDir, 'lock'),
      JSON.stringify({ pid: deadPid, host: 'build-agent-7', since: '2026-01-01T00:00:00.000Z', renewed: new Date().toISOString() }),
    );
    const other = await spawnCli(['apply', '--auto-approve', repo], env(stateDir)).done;
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`locked by pid ${deadPid} on host build-agent-7 since 2026-01-01T00:00:00.000Z`);
    expect(await sim.writes()).toEqual([]);

    await writeFile(join(stateDir, 'lock'), JSON.stringify({ pid: deadPid, host: hostname(), since: '2026-01-01T00:00:00.000Z' }));
    const r = await finish(spawnCli(['apply', '--auto-approve', repo, '--log-level', 'silent'], env(stateDir)));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Warning: taking over the lock of ${stateDir} from pid ${deadPid} on host ${hostname()}`);
    expect(await exists(join(stateDir, 'lock'))).toBe(false);
  }, 120_000);

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`releases the lock when apply is stopped with ${signal}`, async () => {
      await sim.admin('POST', '/_sim/reset');
      const stateDir = await tempDir('packsync-lock-');
      const p = await startApply(stateDir);
      p.child.kill(signal);
      const end = await p.done;
      expect(end.code, end.stderr).toBe(code);
      // sigterm-silent: a SIGTERM (a cancelled CI job) says so in one line, as apply's own Ctrl-C does (regression: nothing on stderr).
      expect(end.stderr).toMatch(signal === 'SIGTERM' ? /Stopped by SIGTERM: packsync apply stopped before it finished/ : /Interrupted/);
      expect(await exists(join(stateDir, 'lock'))).toBe(false);
      // What it recorded before the stop is whole, and the next apply resumes from it.
      const next = await finish(spawnCli(['apply', '--auto-approve', repo, '--log-level', 'silent'], env(stateDir)));
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).not.toContain('taking over');
    }, 120_000);
  }
});
