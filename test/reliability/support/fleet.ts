/**
 * A generated desired set over the simulator's large fleet (seed 1): `apps` catalog apps, each
 * giving two packages (its two catalog versions), and `flowsPerApp` flows per app, each deploying
 * both. The first flow of an app inherits the three-wave "Pilot first" patch group and gates its
 * first deployment at wave 2 (one skip-wave, a call that is NOT safe to repeat); the second
 * deployment of app i's flow f is running, pending or stopped by (i + f) mod 3. Written from the fixtures, not
 * read from the API, so generating it makes no call.
 *
 * One installer scope per version: packages that differ only in scope after a lost import answer
 * have their own deterministic regression test in faults.test.ts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureId } from '../../../src/simulator/fixture-ids.js';
import { buildFixtures } from '../../../src/simulator/fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

export interface FleetShape {
  apps: number;
  flowsPerApp: number;
}

export interface Fleet {
  dir: string;
  packages: number;
  flows: number;
  deployments: number;
}

const PILOT_FIRST = fixtureId(1, 'patch-group', 'Pilot first');
const SECOND_STATES = ['running', 'pending', 'stopped'] as const;

/** Catalog apps of the large fleet with two distinct versions and a unique name. */
export function fleetApps(): { name: string; versions: [string, string] }[] {
  const fx = buildFixtures(1, 'large');
  const counts = new Map<string, number>();
  for (const a of fx.apps) counts.set(a.name.toLowerCase(), (counts.get(a.name.toLowerCase()) ?? 0) + 1);
  const out: { name: string; versions: [string, string] }[] = [];
  for (const a of fx.apps) {
    const [v0, v1] = a.versions;
    if (!v0 || !v1 || v0.version === v1.version || counts.get(a.name.toLowerCase()) !== 1) continue;
    out.push({ name: a.name, versions: [v0.version, v1.version] });
  }
  return out;
}

export async function writeFleet(shape: FleetShape, dir?: string): Promise<Fleet> {
  const root = dir ?? (await tempDir('packsync-fleet-'));
  const apps = fleetApps().slice(0, shape.apps);
  if (apps.length < shape.apps) throw new Error(`the large fleet has only ${apps.length} usable apps`);
  await mkdir(join(root, 'packages'), { recursive: true });
  await mkdir(join(root, 'flows'), { recursive: true });
  let flows = 0;
  let deployments = 0;
  for (const [i, app] of apps.entries()) {
    const pkgs: string[] = [];
    const docs: string[] = [];
    for (const [vi, version] of app.versions.entries()) {
      const name = `app${i}-v${vi}`;
      pkgs.push(name);
      docs.push(
        `apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: ${name}\nspec:\n  catalog:\n    app: ${JSON.stringify(app.name)}\n    version: ${JSON.stringify(version)}\n`,
      );
    }
    await writeFile(join(root, 'packages', `app${i}.yaml`), docs.join('---\n'));
    for (let f = 0; f < shape.flowsPerApp; f++) {
      const flow = `app${i}-flow${f}`;
      const fdocs = [
        `apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: ${flow}\nspec:\n  app: ${JSON.stringify(app.name)}\n${f === 0 ? `  patchGroup: ${PILOT_FIRST}\n` : ''}`,
      ];
      flows++;
      pkgs.forEach((p, k) => {
        const gate = f === 0 && k === 0 ? '  wave: 2\n' : '';
        const state = k === 0 ? 'running' : SECOND_STATES[(i + f) % SECOND_STATES.length]!;
        fdocs.push(
          `apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: ${flow}-${p}\nspec:\n  flow: ${flow}\n  package: ${p}\n  state: ${state}\n${gate}`,
        );
        deployments++;
      });
      await writeFile(join(root, 'flows', `${flow}.yaml`), fdocs.join('---\n'));
    }
  }
  return { dir: root, packages: apps.length * 2, flows, deployments };
}
