/**
 * The shipped example gate (examples/deployments/contoso-agent-1-2-3.yaml) never stops a healthy
 * rollout and passes it: regression test for `minDevices: 20, maxFailureRate: 10%`, which judged
 * Fabrikam failing (12.8 %) under the simulator's default 2 % failure rate and stopped the rollout,
 * and for `successRate: 95%`, which Fabrikam (114 applicable devices) missed by chance in about one
 * run in five of this test (6 failures: 94.7 %), leaving the gate inconclusive until its deadline
 * fails it. Install outcomes hash the deployment's id, which is new every run, so every run is a
 * new draw. Several seeds, judged by an apply every 10 virtual minutes while the devices report, then
 * past the soak every half hour until the gate passes.
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { copyExamples, editFile, EXAMPLES, tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';

const KEY = 'Deployment/contoso-agent-1-2-3';

interface Gate {
  key: string;
  verdict?: string;
  reason?: string;
  since?: string;
  at?: string;
  soakElapsedMs?: number;
}

describe('the shipped example gate', () => {
  it('the example gate never stops a healthy rollout under default outcomes', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      // x60 while the first apply waits for the package (45 virtual seconds: under a second): even a
      // stalled first apply moves the clock by minutes, far from the one-wave rollout's own 24 h end.
      const s = await simEnv({ seed, timeScale: 60 });
      try {
        // The example's own files: the others name fixture ids of the default seed (patch groups).
        const repo = await tempDir('packsync-example-gate-');
        for (const f of ['packages/contoso-agent.yaml', 'flows/contoso-agent.yaml', 'deployments/contoso-agent-1-2-3.yaml', 'content'])
          await cp(join(EXAMPLES, f), join(repo, f), { recursive: true });
        const first = await cli(['apply', repo, '--auto-approve'], s.env);
        expect(first.code, first.stderr + first.stdout).toBe(0);
        // From here virtual time moves only by the advances below (real time at scale 1): slow
        // applies on a loaded machine no longer move the rollout on between two judgements.
        await s.sim.admin('POST', '/_sim/clock', { timeScale: 1 });
        const verdicts: string[] = [];
        let last: Gate | undefined;
        const judge = async (seconds: number): Promise<void> => {
          await s.sim.advance(seconds);
          // Each apply judges the gate and records its soak, as the agent's passes do.
          const out = await cli(['apply', repo, '--auto-approve', '-o', 'json'], s.env);
          const gate = ((JSON.parse(out.stdout) as { plan: { gates?: Gate[] } }).plan.gates ?? []).find((g) => g.key === KEY);
          verdicts.push(gate?.verdict ?? 'none');
          last = gate;
        };
        // Every 10 minutes while the devices report (the first reports are the noisy ones), then past the soak.
        for (let step = 0; step < 37; step++) await judge(600);
        await judge(7 * 3600);
        // Then every half hour until it passes (at most 6 h more, before the wave's own 24 h end).
        for (let more = 0; more < 12 && !verdicts.includes('Pass'); more++) await judge(1800);
        const told = `seed ${seed}: ${verdicts.join(', ')}; last gate ${JSON.stringify(last)}`;
        expect(verdicts, told).not.toContain('Fail');
        expect(verdicts, told).toContain('Pass');
      } finally {
        await s.sim.close();
      }
    }
  }, 120_000);

  it('validate warns when minDevices is below 50 at a maxFailureRate of 10% or less', async () => {
    const repo = await copyExamples();
    const file = join(repo, 'deployments/contoso-agent-1-2-3.yaml');
    await editFile(file, 'minDevices: 50', 'minDevices: 20');
    await editFile(file, 'maxFailureRate: 15%', 'maxFailureRate: 10%');
    const out = await cli(['validate', repo], {});
    expect(out.code).toBe(0);
    expect(out.stdout + out.stderr).toMatch(/contoso-agent-1-2-3\.yaml:\d+:\d+: .*minDevices 20 with maxFailureRate 10%/);
  });
});
