/**
 * Plan-time checks against the live state (issue "safe apply", review rows 10, 20, 21, 22): what
 * used to pass plan and fail in the middle of an apply, or to point at the document's start, or
 * to ask for a replacement that nothing needed.
 */
import { describe, expect, it } from 'vitest';
import type { V1DeploymentViewModel, V1WaveViewModel } from '../../src/api/wire/index.js';
import type { Inventory } from '../../src/state/inventory-types.js';
import type { Manifest, SourcePosition } from '../../src/manifests/model.js';
import { formatPlanMarkdown, formatPlanText } from '../../src/plan/render/format.js';
import type { Plan } from '../../src/plan/types.js';
import {
  D1,
  F1,
  P1,
  TENANT,
  convergedZip,
  dep,
  desired,
  flow,
  live,
  liveDeployment,
  liveFlow,
  livePackage,
  ops,
  pkg,
  run,
  upload,
} from './fixtures.js';

/** A manifest with the field positions the loader would record. */
function at<M extends Manifest>(m: M, positions: Record<string, [number, number]>): M {
  const p: Record<string, SourcePosition> = {};
  for (const [field, [line, column]] of Object.entries(positions)) p[field] = { file: 'm.yaml', line, column };
  return { ...m, source: { file: 'm.yaml', line: 1, column: 1 }, positions: p };
}

function object(p: Plan, key: string): Plan['objects'][number] {
  const o = p.objects.find((x) => x.key === key);
  if (!o) throw new Error(`no ${key} in the plan`);
  return o;
}

function waves(n: number): V1WaveViewModel[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `w${i + 1}`,
    flowId: F1,
    index: i + 1,
    name: `Wave ${i + 1}`,
    delayHours: 24,
    flags: 0,
    tenantIds: [],
  }));
}

/** Live: package P1, flow F1 with `waveCount` waves, and (optionally) deployment D1 of P1 in F1. */
function liveWith(d: V1DeploymentViewModel | undefined, waveCount = 3) {
  const deployments = d ? [d] : [];
  const details = { ...liveFlow(F1, 'zip', deployments), waves: waves(waveCount) };
  return live({ packages: [livePackage(P1)], flows: [{ ...details, details }], deployments });
}

/** The inventory a converged apply of pkg/flow/dep('zip') leaves (the deployment only with `withDeployment`). */
const converged = (withDeployment = true, deployment: Parameters<typeof dep>[3] = {}): Inventory =>
  convergedZip(deployment, withDeployment ? {} : null);

describe('catalog versions are checked at plan time (row 20)', () => {
  it('catalog version not in the catalog is a plan error naming the available versions', () => {
    const bad = at(pkg('zip', '7-Zip', '24.09'), { 'spec.catalog.app': [7, 10], 'spec.catalog.version': [8, 14] });
    const p = run(desired({ packages: [bad], flows: [flow('zip', { package: 'zip' })] }), live());
    expect(object(p, 'Package/zip')).toMatchObject({
      change: 'error',
      error: { code: 'REF_UNKNOWN', message: '7-Zip has no version 24.09; available: 24.08, 24.07, 23.01' },
      source: { file: 'm.yaml', line: 8, column: 14 },
    });
    // Nothing is imported, and what depends on the package waits.
    expect(ops(p)).toEqual([]);
    expect(object(p, 'Flow/zip').change).toBe('skipped');
  });

  it('an unknown versionId is a plan error at spec.catalog.versionId naming the available versions', () => {
    const m = at(pkg('zip', '7-Zip', '24.08', { catalog: { app: '7-Zip', versionId: '33333333-3333-4333-8333-000000000009' } }), {
      'spec.catalog.versionId': [8, 16],
    });
    const p = run(desired({ packages: [m] }), live());
    expect(object(p, 'Package/zip')).toMatchObject({
      change: 'error',
      error: {
        code: 'REF_UNKNOWN',
        message: '7-Zip has no version id 33333333-3333-4333-8333-000000000009; available: 24.08, 24.07, 23.01',
      },
      source: { line: 8, column: 16 },
    });
  });

  it('a known versionId imports the version it names', () => {
    const m = pkg('zip', '7-Zip', '24.08', { catalog: { app: '7-Zip', versionId: '33333333-3333-4333-8333-000000000002' } });
    const imp = run(desired({ packages: [m] }), live()).actions.find((a) => a.op === 'import-package');
    expect(imp?.op === 'import-package' && imp.description).toBe('import 7-Zip 24.07');
  });

  it('a catalog version in the catalog plans the import (matching ignores case)', () => {
    expect(ops(run(desired({ packages: [pkg('zip', '7-zip', '23.01')] }), live()))).toEqual([
      'Package/zip:import-package',
      'Package/zip:wait-package',
    ]);
  });
});

describe('the wave gate is checked against the live flow (row 10)', () => {
  it("a wave gate beyond the flow's waves is a plan error at spec.wave, and nothing is skipped", () => {
    const m = at(dep('zip', 'zip', 'zip', { wave: 99 }), { 'spec.wave': [9, 9] });
    const p = run(
      desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [m] }),
      liveWith(liveDeployment(D1, F1, P1)),
      converged(),
    );
    expect(object(p, 'Deployment/zip')).toMatchObject({
      change: 'error',
      error: {
        code: 'WAVE_OUT_OF_RANGE',
        message: 'wave 99 is beyond the last wave of flow "zip", which has 3 waves; use a wave from 1 to 3',
      },
      source: { file: 'm.yaml', line: 9, column: 9 },
    });
    expect(p.actions).toEqual([]);
    expect(formatPlanText(p)).toContain('m.yaml:9:9: WAVE_OUT_OF_RANGE: wave 99 is beyond the last wave of flow "zip"');
  });

  it('a wave gate beyond the waves of an existing flow is an error before the deployment is added', () => {
    const p = run(
      desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { wave: 4 })] }),
      liveWith(undefined),
      converged(false),
    );
    expect(object(p, 'Deployment/zip').change).toBe('error');
    expect(ops(p)).toEqual([]);
    // The last wave itself is fine.
    const ok = run(
      desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { wave: 3 })] }),
      liveWith(undefined),
      converged(false),
    );
    expect(ops(ok)).toEqual(['Deployment/zip:add-deployment', 'Deployment/zip:skip-wave', 'Deployment/zip:skip-wave']);
  });

  it('a wave gate on a flow this pass creates is not checked: its wave count is not known yet', () => {
    const p = run(
      desired({
        packages: [pkg('zip')],
        flows: [flow('zip', { app: '7-Zip', patchGroup: '2f0c6a1e-1d2b-4c3d-8e9f-0a1b2c3d4e5f' })],
        deployments: [dep('zip', 'zip', 'zip', { wave: 5 })],
      }),
      live(),
    );
    expect(object(p, 'Deployment/zip').change).toBe('create');
    expect(ops(p).filter((o) => o.endsWith(':skip-wave'))).toHaveLength(4);
  });

  it('a live wave past the gate is a reason line, not a change, and the text plan shows it', () => {
    const p = run(
      desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { wave: 2 })] }),
      liveWith(liveDeployment(D1, F1, P1, { currentWave: 3 })),
      converged(),
    );
    const o = object(p, 'Deployment/zip');
    expect(o.change).toBe('none');
    expect(o.reasons).toEqual(['live wave 3 is past the gate wave 2']);
    expect(p.actions).toEqual([]);
    const text = formatPlanText(p);
    expect(text).toContain('  Deployment/zip unchanged\n    # live wave 3 is past the gate wave 2');
    expect(text).toContain('No changes. Live state matches the desired state.');
    const md = formatPlanMarkdown(p);
    expect(md).toContain('No changes. Live state matches the desired state.');
    expect(md).toContain('| `Deployment/zip` | unchanged | live wave 3 is past the gate wave 2 |');
  });
});

describe('live-lookup errors point at the field and quote only the name (row 21)', () => {
  it('an unknown tenant points at spec.tenant and suggests the name in quotes, the rest outside', () => {
    const m = at(upload('u', 'contoso.onmicrosoft.co', 'zip'), { 'spec.tenant': [7, 11] });
    const p = run(desired({ packages: [pkg('zip')], tenantUploads: [m] }), live());
    const o = object(p, 'TenantUpload/u');
    expect(o.source).toEqual({ file: 'm.yaml', line: 7, column: 11 });
    expect(o.error?.message).toBe(
      `unknown tenant "contoso.onmicrosoft.co"; did you mean "contoso.onmicrosoft.com" (Contoso, ${TENANT.id})?`,
    );
    expect(formatPlanText(p)).toContain('m.yaml:7:11: REF_UNKNOWN: unknown tenant "contoso.onmicrosoft.co"');
  });

  it('an unknown catalog app points at spec.catalog.app; an unknown template at its scriptTemplate field', () => {
    const app = at(pkg('a', '7-Zipp'), { 'spec.catalog.app': [7, 10] });
    const tpl = at(pkg('t', '7-Zip', '24.08', { catalog: { app: '7-Zip', version: '24.08', scriptTemplate: 'Nope' } }), {
      'spec.catalog.scriptTemplate': [9, 21],
    });
    const fl = at(flow('f', { app: '7-Zip', scriptTemplate: 'Nope' }), { 'spec.scriptTemplate': [8, 19] });
    const fa = at(flow('g', { app: 'Seven' }), { 'spec.app': [7, 8] });
    const p = run(desired({ packages: [app, tpl], flows: [fl, fa] }), live());
    expect(object(p, 'Package/a').source).toMatchObject({ line: 7, column: 10 });
    expect(object(p, 'Package/a').error?.message).toBe(
      'unknown catalog app "7-Zipp"; did you mean "7-Zip" (11111111-1111-4111-8111-111111111111)?',
    );
    expect(object(p, 'Package/t')).toMatchObject({
      error: { message: 'unknown script template "Nope"; the account has none' },
      source: { line: 9, column: 21 },
    });
    expect(object(p, 'Flow/f').source).toMatchObject({ line: 8, column: 19 });
    expect(object(p, 'Flow/g').source).toMatchObject({ line: 7, column: 8 });
  });

  it('a manifest without recorded positions still points at its document', () => {
    const p = run(desired({ tenantUploads: [upload('u', 'nobody', 'zip')] }), live());
    expect(object(p, 'TenantUpload/u').source).toEqual({ file: 'x.yaml', line: 1, column: 1 });
  });
});

describe('a failed package says why (row 21)', () => {
  it("a live package in state Error carries the service's errorDetails", () => {
    const l = live({ packages: [livePackage(P1, { state: 'Error' })], packageErrors: { [P1]: 'MSI analysis failed: not a valid MSI' } });
    const p = run(desired({ packages: [pkg('zip')] }), l, converged());
    expect(object(p, 'Package/zip').error).toEqual({
      code: 'PACKAGE_FAILED',
      message: `live package ${P1} is in state Error: MSI analysis failed: not a valid MSI; change the spec to create a new one`,
    });
  });
});

describe('writing down what is already true is no replacement (row 22)', () => {
  it("a version equal to the live deployment's is recorded in the state with no API call", () => {
    const p = run(
      desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { version: '24.08' })] }),
      liveWith(liveDeployment(D1, F1, P1, { version: '24.08' })),
      converged(),
    );
    const o = object(p, 'Deployment/zip');
    expect(o.change).toBe('update');
    expect(o.reasons[0]).toBe('version "24.08" is already the live deployment\'s version: recorded in the state, no API call');
    expect(ops(p)).toEqual(['Deployment/zip:record']);
    const rec = p.actions[0];
    expect(rec?.op === 'record' && rec.entry.spec).toEqual({ flow: 'zip', package: 'zip', version: '24.08' });
    expect(rec?.op === 'record' && rec.entry.id).toBe(D1);
  });

  it('leaving out a recorded version the live deployment has from its package is no replacement either', () => {
    const p = run(
      desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip')] }),
      liveWith(liveDeployment(D1, F1, P1, { version: '24.08' })),
      converged(true, { version: '24.08' }),
    );
    expect(object(p, 'Deployment/zip').change).toBe('update');
    expect(ops(p)).toEqual(['Deployment/zip:record']);
  });

  it("a version different from the live deployment's still requires replacement", () => {
    const p = run(
      desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { version: '24.07' })] }),
      liveWith(liveDeployment(D1, F1, P1, { version: '24.08' })),
      converged(),
    );
    expect(object(p, 'Deployment/zip')).toMatchObject({
      change: 'requires-replacement',
      fields: [{ field: 'version', from: null, to: '24.07' }],
    });
    expect(p.actions).toEqual([]);
  });
});
