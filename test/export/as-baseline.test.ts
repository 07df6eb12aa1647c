/**
 * The fold of `export --as-baseline`, checked by the real expansion: whatever layers it chooses,
 * the Baseline it writes must expand into exactly the flows, deployments and packages it replaces
 * (same live name, same settings), and what stays plain must refer to the baseline's packages.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { foldIntoBaseline } from '../../src/export/as-baseline.js';
import type { ExportedManifest, ExportedObjects } from '../../src/export/export-manifests.js';
import { loadRepository } from '../../src/manifests/load.js';
import { tempDir } from '../support/repo.js';

const G1 = '11111111-1111-4111-8111-111111111111';
const G2 = '22222222-2222-4222-8222-222222222222';
const G3 = '33333333-3333-4333-8333-333333333333';

const m = (kind: ExportedManifest['kind'], name: string, spec: Record<string, unknown>): ExportedManifest => ({
  apiVersion: 'packsync.dev/v1',
  kind,
  metadata: { name },
  spec,
});
const pkg = (name: string, app: string, version: string, more: Record<string, unknown> = {}): ExportedManifest =>
  m('Package', name, { catalog: { app, version, scope: 'machine', ...more } });
const flow = (name: string, live: string, app: string, group: string, more: Record<string, unknown> = {}): ExportedManifest =>
  m('Flow', name, { name: live, app, patchGroup: group, scope: 'machine', ...more });
const dep = (name: string, f: string, p: string, state = 'running'): ExportedManifest =>
  m('Deployment', name, { flow: f, package: p, state });

/**
 * Three patch groups: G1's flows all end in ` (pilot)`; G2's in ` - Wave 2` but one is named
 * freely; G3's names add different things (no ring name to find). Notepad and Notepad++ share an
 * object-name part. Script templates are set on some flows only; PowerShell's package differs in G3.
 */
function account(): ExportedObjects {
  return {
    packages: [
      pkg('sz', '7-Zip', '24.08'),
      pkg('sz-old', '7-Zip', '24.07'),
      pkg('pwsh', 'PowerShell 7', '7.4.6'),
      pkg('pwsh-t', 'PowerShell 7', '7.4.6', { scope: 'user', scriptTemplate: 'Default (PSADT 3.10.2)' }),
      pkg('npp', 'Notepad++', '8.7.1'),
      pkg('np', 'Notepad', '1.0'),
      pkg('lonely', 'KeePass', '2.57.1'),
    ],
    flows: [
      flow('f1', '7-Zip (pilot)', '7-Zip', G1, { flags: ['startNewVersionsAutomatically'] }),
      flow('f2', 'PowerShell 7 (pilot)', 'PowerShell 7', G1),
      flow('f3', 'Notepad++ (pilot)', 'Notepad++', G1, { supersedenceHistoryCount: 3 }),
      flow('f4', 'Notepad (pilot)', 'Notepad', G1),
      flow('f5', '7-Zip - Wave 2', '7-Zip', G2),
      flow('f6', 'Shell for wave two', 'PowerShell 7', G2),
      flow('f11', 'Notepad++ - Wave 2', 'Notepad++', G2, { supersedenceHistoryCount: 3 }),
      flow('f7', '7-Zip at Contoso', '7-Zip', G3),
      flow('f8', 'PowerShell 7 for Fabrikam', 'PowerShell 7', G3, { scope: 'user', scriptTemplate: 'Default (PSADT 3.10.2)' }),
      flow('f9', '7-Zip again (pilot)', '7-Zip', G1),
      m('Flow', 'f10', { name: 'Custom thing', package: 'lonely', patchGroup: G1 }),
    ],
    deployments: [
      dep('d1', 'f1', 'sz'),
      dep('d2', 'f2', 'pwsh'),
      dep('d3', 'f3', 'npp', 'stopped'),
      dep('d4', 'f4', 'np'),
      dep('d5', 'f5', 'sz-old', 'pending'),
      dep('d6', 'f6', 'pwsh'),
      dep('d11', 'f11', 'npp'),
      dep('d7', 'f7', 'sz'),
      dep('d8', 'f8', 'pwsh-t'),
      dep('d9', 'f9', 'sz'),
      dep('d10', 'f10', 'lonely'),
    ],
    uploads: [m('TenantUpload', 'u1', { tenant: 'contoso.example', package: 'pwsh-t' })],
    contentDirs: [],
    refersToOwned: false,
    ownedRefs: [],
    owned: 0,
    skipped: [],
  };
}

interface Loaded {
  metadata: { name: string };
  spec: Record<string, unknown>;
}

describe('foldIntoBaseline', () => {
  it('writes a baseline whose expansion is exactly the flows, deployments and packages it replaces', async () => {
    const before = account();
    const fold = foldIntoBaseline(before, 'std');
    expect(fold.kept.map((k) => k.label).sort()).toEqual(['7-Zip again (pilot)', 'Custom thing']);
    const spec = fold.baseline!.spec as { rings: Record<string, string>; apps: { app: string; name?: string }[] };
    // G1 and G2 have ring names from (most of) their flows' names; G3's add nothing in common.
    expect(spec.rings).toEqual({ pilot: G1, 'wave-2': G2, 'ring-3': G3 });
    expect(spec.apps.find((a) => a.app === 'Notepad++')?.name).toBe('notepad-2');

    const dir = await tempDir('packsync-fold-');
    await mkdir(join(dir, 'x'));
    const file = (xs: unknown[]): string => xs.map((x) => stringify(x)).join('---\n');
    await writeFile(join(dir, '.packsyncignore'), '');
    await writeFile(join(dir, 'baseline.yaml'), file([fold.baseline]));
    const o = fold.objects;
    await writeFile(join(dir, 'plain.yaml'), file([...o.packages, ...o.flows, ...o.deployments, ...o.uploads]));
    const loaded = await loadRepository([dir]);
    expect(loaded.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const d = loaded.desired!;
    const flows = d.flows as unknown as Loaded[];
    const deps = d.deployments as unknown as Loaded[];
    const packages = d.packages as unknown as Loaded[];
    const foldedFlows = before.flows.filter((f) => !fold.kept.some((k) => k.label === f.spec.name));
    expect(foldedFlows).toHaveLength(9);
    for (const f of foldedFlows) {
      const got = flows.find((x) => x.spec.name === f.spec.name);
      expect(got?.spec, String(f.spec.name)).toEqual(f.spec);
      const gotDep = deps.find((x) => x.spec.flow === got!.metadata.name)!;
      const wasDep = before.deployments.find((x) => x.spec.flow === f.metadata.name)!;
      expect(gotDep.spec.state).toBe(wasDep.spec.state);
      const gotPkg = packages.find((p) => p.metadata.name === gotDep.spec.package)!;
      const wasPkg = before.packages.find((p) => p.metadata.name === wasDep.spec.package)!;
      expect(gotPkg.spec, String(f.spec.name)).toEqual(wasPkg.spec);
    }
    // Exactly the plain objects that were not folded remain, and the upload names the baseline's package.
    expect(packages.map((p) => p.metadata.name).filter((n) => !n.startsWith('std.'))).toEqual(['lonely']);
    expect(packages).toHaveLength(6 + 1);
    const upload = (d.tenantUploads as unknown as Loaded[])[0]!;
    expect(packages.find((p) => p.metadata.name === upload.spec.package)?.spec).toEqual(before.packages[3]!.spec);
    expect(flows).toHaveLength(9 + 2);
    expect(deps.find((x) => x.spec.flow === 'f9')?.spec.package).toBe('std.7-zip');
  });

  it('folds nothing and changes nothing when no flow fits', () => {
    const before = account();
    const only: ExportedObjects = { ...before, flows: before.flows.slice(-1), deployments: before.deployments.slice(-1) };
    const fold = foldIntoBaseline(only, 'std');
    expect(fold.baseline).toBeUndefined();
    expect(fold.objects).toBe(only);
    expect(fold.kept).toEqual([{ label: 'Custom thing', reason: 'it deploys a fixed package rather than its app' }]);
  });
});
