/**
 * The kind registry (docs/architecture.md, "Manifests and kinds"): every kind has one descriptor
 * whose schema is its own, authored kinds are never state keys, and a loaded Baseline reaches the
 * desired set only as the object kinds it expands into.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStateKey } from '../../src/cli/state-keys.js';
import { AUTHORED_KIND_SPECS, OBJECT_KIND_SPECS, OBJECT_KINDS_IN_ORDER } from '../../src/manifests/kinds/index.js';
import { loadManifests } from '../../src/manifests/load.js';
import { AUTHORED_KINDS, OBJECT_KINDS } from '../../src/manifests/model.js';
import { KIND_PLANNERS } from '../../src/plan/kinds/index.js';
import { tempDir } from '../support/repo.js';

describe('kind registry', () => {
  it('describes every kind once, with its own schema, and orders referenced kinds first', () => {
    for (const k of OBJECT_KINDS) {
      const spec = OBJECT_KIND_SPECS[k];
      expect(spec.kind).toBe(k);
      expect((spec.schema.properties as Record<string, { const?: string }>).kind?.const).toBe(k);
      for (const target of Object.values(spec.references)) expect(OBJECT_KIND_SPECS[target].order).toBeLessThan(spec.order);
    }
    for (const k of AUTHORED_KINDS)
      expect((AUTHORED_KIND_SPECS[k].schema.properties as Record<string, { const?: string }>).kind?.const).toBe(k);
    expect(OBJECT_KINDS_IN_ORDER).toEqual(['Package', 'Flow', 'Deployment', 'TenantUpload']);
  });

  it('state keys take object kinds only: a Baseline is never in the state (regression: KINDS was also the inventory kind)', () => {
    expect(parseStateKey('Flow/standard-apps.7-zip.pilot', 'OLD').kind).toBe('Flow');
    expect(() => parseStateKey('Baseline/standard-apps', 'OLD')).toThrow(/a Baseline is never in the state/);
  });

  it('a Baseline reaches the desired set only as packages, flows and deployments (regression: load ended in an else that took any other kind for a TenantUpload)', async () => {
    const dir = await tempDir('packsync-kinds-');
    await mkdir(join(dir, '.git'));
    const text = [
      'apiVersion: packsync.dev/v1',
      'kind: Baseline',
      'metadata: { name: b }',
      'spec:',
      '  rings: { pilot: 2e346735-40e0-4c05-9733-4aece1ad5b00 }',
      '  apps: [{ app: 7-Zip, version: "24.08" }]',
      '',
    ].join('\n');
    await writeFile(join(dir, 'b.yaml'), text);
    const r = await loadManifests(dir);
    expect(r.problems).toEqual([]);
    const d = r.desired!;
    expect(d.tenantUploads).toEqual([]);
    expect(d.packages.map((m) => m.metadata.name)).toEqual(['b.7-zip']);
    expect(d.flows.map((m) => [m.metadata.name, m.spec.name, m.spec.patchGroup])).toEqual([
      ['b.7-zip.pilot', '7-Zip (pilot)', '2e346735-40e0-4c05-9733-4aece1ad5b00'],
    ]);
    expect(d.deployments.map((m) => [m.metadata.name, m.spec.flow, m.spec.package])).toEqual([
      ['b.7-zip.pilot', 'b.7-zip.pilot', 'b.7-zip'],
    ]);
    // A plan error about the flow's app points at the baseline's app entry.
    expect(d.flows[0]!.positions?.['spec.app']).toMatchObject({ file: 'b.yaml', line: 6 });

    // Change windows set in an override reach the generated flow (docs/policy.md).
    const windows = { timezone: 'Europe/Oslo', allow: ['Mon-Thu 08:00-16:00'] };
    await writeFile(join(dir, 'b.yaml'), `${text}  overrides:\n    - { rings: [pilot], windows: ${JSON.stringify(windows)} }\n`);
    const w = await loadManifests(dir);
    expect(w.problems).toEqual([]);
    expect((w.desired!.flows[0]!.spec as { windows?: unknown }).windows).toEqual(windows);
  });

  it('every object kind has exactly one planner in plan/kinds, and the planner visits kinds in the registry order', () => {
    expect(Object.keys(KIND_PLANNERS).sort()).toEqual([...OBJECT_KINDS].sort());
    // Referenced kinds first: a package before the flows that may name it, a flow before its deployments.
    expect(OBJECT_KINDS_IN_ORDER).toEqual(['Package', 'Flow', 'Deployment', 'TenantUpload']);
  });
});
