/** A Baseline's overrides (docs/baselines.md, "Precedence"): when two of one specificity agree, and when they contradict. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { tempDir } from '../support/repo.js';

const baseline = (overrides: string[]): string =>
  [
    'apiVersion: packsync.dev/v1',
    'kind: Baseline',
    'metadata: { name: std }',
    'spec:',
    '  rings: { pilot: Pilot first, broad: Everyone at once }',
    '  defaults: { scope: machine }',
    '  apps:',
    '    - { app: 7-Zip, version: "24.08" }',
    '  overrides:',
    ...overrides.map((o) => `    - ${o}`),
    '',
  ].join('\n');

async function load(text: string): Promise<Awaited<ReturnType<typeof loadManifests>>> {
  const dir = await tempDir('packsync-overrides-');
  await writeFile(join(dir, 'baseline.yaml'), text);
  return loadManifests(dir);
}

describe('Baseline overrides of one specificity', () => {
  it('override-key-order-agrees: two overrides that set the same object with its keys in another order agree (regression: reported as a contradiction)', async () => {
    const loaded = await load(
      baseline([
        '{ rings: [pilot], update: { track: latest, minAge: 2d }, promotion: { soak: 6h, successRate: "95%" } }',
        '{ apps: [7-Zip], update: { minAge: 2d, track: latest }, promotion: { successRate: "95%", soak: 6h } }',
      ]),
    );
    expect(loaded.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(loaded.desired?.packages.map((p) => p.spec)).toContainEqual(
      expect.objectContaining({ catalog: expect.objectContaining({ update: { track: 'latest', minAge: '2d' } }) }),
    );
  });

  it('two overrides that set one field to different values are still an error at both', async () => {
    const loaded = await load(baseline(['{ rings: [pilot], update: { track: latest } }', '{ apps: [7-Zip], update: { track: "24.x" } }']));
    expect(loaded.problems.filter((p) => p.rule === 'baseline.override-conflict').map((p) => p.line)).toEqual([10, 11]);
  });
});
