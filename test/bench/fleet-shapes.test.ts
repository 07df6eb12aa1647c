/**
 * The generated fleets of the benchmarks are valid desired sets (regression: every fleet with five
 * deployments a flow failed validation once `package.duplicate` existed, because its fifth package
 * of an app differed from the first only in a script template, which is no part of a package's
 * live identity: noop-large, converge-large, fleet-10x and the agent benchmarks all stopped with
 * "the fleet did not converge"). Checked with `packsync validate`, as a user would.
 */
import { describe, expect, it } from 'vitest';
import { writeFleet } from '../support/fleet.js';
import { cli } from '../support/cli.js';

describe('benchmark fleets', () => {
  for (const shape of [
    { flows: 30, deploymentsPerFlow: 5, packages: 60 },
    { flows: 12, deploymentsPerFlow: 5, packages: 25 },
    { flows: 10, deploymentsPerFlow: 4, packages: 20 },
    { flows: 6, deploymentsPerFlow: 2, packages: 12 },
  ]) {
    it(`${shape.flows} flows × ${shape.deploymentsPerFlow} deployments over ${shape.packages} packages validate`, async () => {
      const fleet = await writeFleet(shape);
      const r = await cli(['validate', fleet.dir, '--output', 'json'], {});
      const out = JSON.parse(r.stdout) as { valid: boolean; problems: { rule: string; message: string }[]; documents: number };
      expect(out.problems.map((p) => `${p.rule}: ${p.message}`)).toEqual([]);
      expect(r.code).toBe(0);
      expect(out.documents).toBe(shape.packages + shape.flows * (1 + shape.deploymentsPerFlow));
    });
  }
});
