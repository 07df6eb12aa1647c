import { describe, expect, it } from 'vitest';
import type { Inventory, InventoryEntry } from '../../src/state/inventory-types.js';
import { formatPlanJson, formatPlanMarkdown, formatPlanText } from '../../src/plan/render/format.js';
import { hashValue } from '../../src/plan/hash.js';
import type { Plan } from '../../src/plan/types.js';
import { isChangeAction } from '../../src/plan/types.js';
import {
  APP_7ZIP,
  D1,
  F1,
  P1,
  TENANT,
  convergedZip,
  dep,
  desired,
  emptyInventory,
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

const P2 = 'aaaaaaaa-0000-4000-8000-000000000002';

/** Inventory as a converged apply of pkg('zip') + flow('zip') + dep('zip') would leave it. */
const converged = (state: string = 'running', extra: Partial<InventoryEntry> = {}): Inventory =>
  convergedZip({ state: state as 'running' }, extra);

function liveWith(status: 'Running' | 'Stopped' | 'NotStarted' = 'Running', extra = {}) {
  const d = liveDeployment(D1, F1, P1, { status, ...extra });
  return live({
    packages: [livePackage(P1)],
    flows: [{ ...liveFlow(F1, 'zip', [d]), details: liveFlow(F1, 'zip', [d]) }],
    deployments: [d],
  });
}

describe('planner', () => {
  it('plans a fresh converge in dependency order with the wave gate and a tenant upload', () => {
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip')],
      deployments: [dep('zip', 'zip', 'zip', { state: 'running', wave: 3 })],
      tenantUploads: [upload('zip-contoso', 'contoso.onmicrosoft.com', 'zip')],
    });
    const p = run(d, live());
    expect(ops(p)).toEqual([
      'Package/zip:import-package',
      'Package/zip:wait-package',
      'Flow/zip:create-flow',
      'Deployment/zip:add-deployment',
      'Deployment/zip:skip-wave',
      'Deployment/zip:skip-wave',
      'TenantUpload/zip-contoso:tenant-upload',
    ]);
    const byOp = Object.fromEntries(p.actions.map((a) => [`${a.key}:${a.op}`, a]));
    const wait = byOp['Package/zip:wait-package']!;
    expect(byOp['Deployment/zip:add-deployment']!.dependsOn).toEqual(expect.arrayContaining([wait.id, byOp['Flow/zip:create-flow']!.id]));
    expect(byOp['TenantUpload/zip-contoso:tenant-upload']!.dependsOn).toEqual([wait.id]);
    expect(p.summary).toMatchObject({ create: 4, change: 0, delete: 0, unchanged: 0 });
    const add = byOp['Deployment/zip:add-deployment']!;
    expect(add.op === 'add-deployment' && add.startNow).toBe(true);
  });

  it('plans nothing when live state and inventory match the desired set', () => {
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { state: 'running' })] });
    const p = run(d, liveWith('Running'), converged());
    expect(p.actions).toEqual([]);
    expect(p.summary).toMatchObject({ create: 0, change: 0, delete: 0, unchanged: 3 });
  });

  it('is deterministic: the same inputs give the same plan', () => {
    const d = desired({
      packages: [pkg('zip'), pkg('old', '7-Zip', '24.07')],
      flows: [flow('zip')],
      deployments: [dep('zip', 'zip', 'zip')],
    });
    expect(JSON.stringify(run(d, live()))).toBe(JSON.stringify(run(d, live())));
  });

  it('creates a new live package when the package spec changes, and adds a deployment for it', () => {
    const d = desired({ packages: [pkg('zip', '7-Zip', '24.07')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip')] });
    const p = run(d, liveWith(), converged());
    const o = p.objects.find((x) => x.key === 'Package/zip')!;
    expect(o.change).toBe('replace');
    expect(o.fields.map((f) => f.field)).toContain('catalog.version');
    // The previous package and deployment stay in the state as superseded (docs/reconcile.md), before the creates.
    expect(ops(p)).toEqual([
      'Package/zip#aaaaaaaa-0000-4000-8000-000000000001:record',
      'Package/zip:import-package',
      'Package/zip:wait-package',
      'Deployment/zip#cccccccc-0000-4000-8000-000000000001:record',
      'Deployment/zip:add-deployment',
    ]);
  });

  it('shows a changed flow as requiring replacement, and replaces it only with allowReplace', () => {
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip', { app: '7-Zip', flags: ['radarTracking'] })],
      deployments: [dep('zip', 'zip', 'zip')],
    });
    const blocked = run(d, liveWith(), converged());
    const o = blocked.objects.find((x) => x.key === 'Flow/zip')!;
    expect(o.change).toBe('requires-replacement');
    // Manifest words, not the API's bitmask.
    expect(o.fields).toEqual([{ field: 'flags', from: [], to: ['radarTracking'] }]);
    expect(blocked.actions).toEqual([]);
    const replaced = run(d, liveWith(), converged(), { allowReplace: true });
    // Create first, add the deployment to the new flow, delete the old flow last.
    expect(ops(replaced)).toEqual([
      'Flow/zip#bbbbbbbb-0000-4000-8000-000000000001:record',
      'Flow/zip:create-flow',
      'Flow/zip#bbbbbbbb-0000-4000-8000-000000000001:delete-flow',
      'Deployment/zip:add-deployment',
    ]);
    const del = replaced.actions.find((a) => a.op === 'delete-flow')!;
    const add = replaced.actions.find((a) => a.op === 'add-deployment')!;
    const create = replaced.actions.find((a) => a.op === 'create-flow')!;
    expect(del.dependsOn).toEqual([create.id, add.id]);
    expect(replaced.summary.delete).toBe(1);
  });

  it('heals a deployment stopped outside git, or only reports it under drift=report', () => {
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { state: 'running' })] });
    const heal = run(d, liveWith('Stopped'), converged());
    expect(ops(heal)).toEqual(['Deployment/zip:start', 'Deployment/zip:record']);
    expect(heal.objects.find((x) => x.key === 'Deployment/zip')!.reasons[0]).toMatch(/stopped outside packsync/);
    const report = run(d, liveWith('Stopped'), converged(), { drift: 'report' });
    expect(report.actions).toEqual([]);
    expect(report.objects.find((x) => x.key === 'Deployment/zip')!.change).toBe('drift');
  });

  it('counts drift that is only reported (or held by the heal backoff) as drifted in the summary, not blocked (regression: "1 blocked")', () => {
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { state: 'running' })] });
    for (const opts of [{ drift: 'report' as const }, { driftHold: ['Deployment/zip'] }]) {
      const p = run(d, liveWith('Stopped'), converged(), opts);
      expect(p.summary).toMatchObject({ blocked: 0, drifted: 1 });
      const line = formatPlanText(p).split('\n').at(-1);
      expect(line).toBe('Plan: 0 to create, 0 to change, 0 to delete, 2 unchanged, 1 drifted (reported, not healed).');
      // The JSON keeps every field it had (with `blocked` counting only what is blocked) and adds `drifted` (and `suspended`).
      expect(Object.keys((JSON.parse(formatPlanJson(p)) as Plan).summary)).toEqual([
        'create',
        'change',
        'delete',
        'unchanged',
        'waiting',
        'blocked',
        'suspended',
        'drifted',
        'orphaned',
        'errors',
      ]);
    }
    expect(run(d, liveWith('Stopped'), converged()).summary).toMatchObject({ change: 1, blocked: 0, drifted: 0 });
  });

  it('orphan-counted-twice: an orphan that requires pruning is counted as orphaned only, so the counts add up to the objects (regression: also "unchanged")', () => {
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')] });
    const p = run(d, liveWith('Running'), converged());
    expect(p.objects.find((x) => x.key === 'Deployment/zip')).toMatchObject({ change: 'orphan', requiresPruning: true });
    expect(p.summary).toMatchObject({ unchanged: 2, orphaned: 1 });
    const counted = (['create', 'change', 'delete', 'unchanged', 'waiting', 'blocked', 'suspended', 'drifted', 'orphaned'] as const).reduce(
      (n, k) => n + (p.summary[k] ?? 0),
      0,
    );
    expect(counted).toBe(p.objects.length);
  });

  it('marks drift on the object as healed, reported or held (the agent reads this, never the message)', () => {
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { state: 'running' })] });
    const drift = (o: Partial<Parameters<typeof run>[3]>): unknown =>
      run(d, liveWith('Stopped'), converged(), o).objects.find((x) => x.key === 'Deployment/zip')!.drift;
    expect(drift({})).toBe('healed');
    expect(drift({ drift: 'report' })).toBe('reported');
    const held = run(d, liveWith('Stopped'), converged(), { driftHold: ['Deployment/zip'] });
    expect(held.actions).toEqual([]);
    expect(held.objects.find((x) => x.key === 'Deployment/zip')).toMatchObject({ change: 'drift', drift: 'held' });
    expect(run(d, liveWith('Running'), converged()).objects.find((x) => x.key === 'Deployment/zip')!.drift).toBeUndefined();
  });

  it('stops a running deployment when git says stopped', () => {
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { state: 'stopped' })] });
    expect(ops(run(d, liveWith('Running'), converged()))).toEqual(['Deployment/zip:stop', 'Deployment/zip:record']);
  });

  it('skips waves until the gate is reached', () => {
    // A gate beyond the last wave is a plan error now (test/plan/plan-checks.test.ts).
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { wave: 3 })] });
    const p = run(d, liveWith('Running', { currentWave: 1, waveCount: 3 }), converged());
    const skips = p.actions.filter((a) => a.op === 'skip-wave');
    expect(skips.map((a) => (a.op === 'skip-wave' ? a.untilWave : 0))).toEqual([2, 3]);
  });

  it('calls update-content once when contentRevision changes', () => {
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { contentRevision: 2 })] });
    const p = run(d, liveWith(), converged('running', { contentRevision: 1 }));
    expect(ops(p)).toEqual(['Deployment/zip:update-content', 'Deployment/zip:record']);
    const rec = p.actions.find((a) => a.op === 'record');
    expect(rec?.op === 'record' && rec.entry.contentRevision).toBe(2);
    const again = run(d, liveWith(), converged('running', { contentRevision: 2 }));
    expect(again.actions).toEqual([]);
  });

  it('a new contentRevision of a deployment stopped outside packsync is updated once and recorded while the drift is only reported (regression: update-content planned again every pass)', () => {
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { contentRevision: 2 })] });
    const p = run(d, liveWith('Stopped'), converged('running', { contentRevision: 1 }), { drift: 'report' });
    expect(p.objects.find((o) => o.key === 'Deployment/zip')).toMatchObject({ change: 'drift', drift: 'reported' });
    expect(ops(p)).toEqual(['Deployment/zip:update-content', 'Deployment/zip:record']);
    const rec = p.actions.find((a) => a.op === 'record');
    expect(rec?.op === 'record' && rec.entry).toMatchObject({ contentRevision: 2, appliedState: 'running' });
    // The next pass, with the revision recorded: the drift is still reported, nothing is called.
    const again = run(d, liveWith('Stopped'), converged('running', { contentRevision: 2 }), { drift: 'report' });
    expect(again.actions).toEqual([]);
    expect(again.objects.find((o) => o.key === 'Deployment/zip')).toMatchObject({ change: 'drift', drift: 'reported' });
  });

  it('prunes only owned objects, deployments before their flows, and only with prune', () => {
    const inv = converged();
    const d = desired({ packages: [pkg('zip')] });
    const orphan = run(d, liveWith(), inv);
    // No change: only the quiet record that their manifests left git (the Baseline blast guard counts a removal once).
    expect(orphan.actions.filter(isChangeAction)).toEqual([]);
    expect(orphan.actions.map((a) => a.op === 'gate' && a.quiet && a.set.leftGit !== undefined)).toEqual([true, true]);
    expect(orphan.objects.filter((o) => o.change === 'orphan').map((o) => o.key)).toEqual(['Deployment/zip', 'Flow/zip']);
    const p = run(d, liveWith(), inv, { prune: true });
    expect(ops(p)).toEqual(['Deployment/zip:delete-deployment', 'Flow/zip:delete-flow']);
    const [del, delFlow] = p.actions;
    expect(delFlow!.dependsOn).toEqual([del!.id]);
  });

  it('refuses to prune everything when the desired set is empty, unless pruneAll', () => {
    const p = run(desired({}), liveWith(), converged(), { prune: true });
    expect(p.errors[0]).toMatch(/refusing to prune/);
    expect(p.actions).toEqual([]);
    const all = run(desired({}), liveWith(), converged(), { prune: true, pruneAll: true });
    expect(ops(all)).toEqual(['Deployment/zip:delete-deployment', 'Package/zip:forget', 'Flow/zip:delete-flow']);
  });

  it('keeps an object whose prune annotation is disabled', () => {
    const inv = converged();
    inv.objects['Flow/zip']!.annotations = { 'packsync.dev/prune': 'disabled' };
    const p = run(desired({ packages: [pkg('zip')] }), liveWith(), inv, { prune: true });
    expect(ops(p)).toEqual(['Deployment/zip:delete-deployment', 'Flow/zip:forget']);
  });

  it('reports an unowned live flow of the same name as a conflict, and adopts it with adopt', () => {
    const d = desired({ flows: [flow('zip')] });
    const l = live({ flows: [liveFlow(F1, 'zip')] });
    const p = run(d, l);
    expect(p.objects[0]!.change).toBe('conflict');
    expect(p.actions).toEqual([]);
    const adopted = run(d, l, emptyInventory(), { adopt: true });
    expect(ops(adopted)).toEqual(['Flow/zip:record']);
  });

  it('resolves a pending create intent by adopting the object found live, never creating a duplicate', () => {
    const inv = emptyInventory();
    inv.intents['Package/zip'] = { key: 'Package/zip', op: 'import-package', at: 'x', knownIds: [], match: {} };
    const p = run(desired({ packages: [pkg('zip')] }), live({ packages: [livePackage(P1, { state: 'Running' })] }), inv);
    expect(ops(p)).toEqual(['Package/zip:record', 'Package/zip:wait-package']);
    const rec = p.actions[0]!;
    expect(rec.op === 'record' && rec.resolvesIntent && rec.entry.id).toBe(P1);
    // Without the intent, the same live package is someone else's: a conflict.
    expect(run(desired({ packages: [pkg('zip')] }), live({ packages: [livePackage(P1)] })).objects[0]!.change).toBe('conflict');
    // Regression (operator review 3 row 14): a Ctrl-C is an interrupted run, never called a crash.
    const text = formatPlanText(p);
    expect(text).toContain('resolved a create of an interrupted run');
    expect(rec.description).toMatch(/created by an interrupted run$/);
    expect(`${text}${formatPlanJson(p)}`).not.toMatch(/crash/i);
  });

  it('resolves an import intent only with a package of the same installer scope (regression)', () => {
    const inv = emptyInventory();
    inv.intents['Package/zip-user'] = { key: 'Package/zip-user', op: 'import-package', at: 'x', knownIds: [], match: {} };
    const userPkg = pkg('zip-user', '7-Zip', '24.08', { catalog: { app: '7-Zip', version: '24.08', scope: 'user' } });
    // Only the machine-scope sibling exists live: it must not be adopted for the user-scope manifest.
    const p = run(desired({ packages: [userPkg] }), live({ packages: [livePackage(P1)] }), inv);
    expect(ops(p)).toEqual(['Package/zip-user:import-package', 'Package/zip-user:wait-package']);
    const found = run(
      desired({ packages: [userPkg] }),
      live({ packages: [livePackage(P1), livePackage(P2, { userScope: true, machineScope: false })] }),
      inv,
    );
    const rec = found.actions[0]!;
    expect(rec.op === 'record' && rec.entry.id).toBe(P2);
  });

  it('follows an upload task adopted from an intent to its end when it is still running (regression)', () => {
    const inv = emptyInventory();
    const imp = run(desired({ packages: [pkg('zip')] }), live()).actions.find((a) => a.op === 'import-package');
    if (imp?.op !== 'import-package') throw new Error('expected an import');
    inv.objects['Package/zip'] = {
      kind: 'Package',
      name: 'zip',
      id: P1,
      specHash: imp.record.specHash,
      spec: imp.record.spec,
      revision: 'r0',
      updatedAt: 'x',
    };
    inv.intents['TenantUpload/up'] = { key: 'TenantUpload/up', op: 'tenant-upload', at: 'x', knownIds: [], match: {} };
    const task = {
      id: 'task-1',
      created: 'x',
      startedAt: 'x',
      completedAt: null,
      supportsProgress: true,
      progress: 10,
      state: 'Running' as const,
      tenantId: TENANT.id,
      packageId: P1,
      errorDetails: null,
    };
    const l = live({ packages: [livePackage(P1)], uploads: { [TENANT.id]: [task] } });
    const p = run(desired({ packages: [pkg('zip')], tenantUploads: [upload('up', 'contoso.onmicrosoft.com', 'zip')] }), l, inv);
    expect(ops(p).filter((o) => o.startsWith('TenantUpload'))).toEqual(['TenantUpload/up:record', 'TenantUpload/up:wait-upload']);
  });

  it('lists objects in the order they run in text and markdown: packages, flows, deployments, uploads', () => {
    const p = run(
      desired({
        packages: [pkg('zip')],
        flows: [flow('zip')],
        deployments: [dep('zip', 'zip', 'zip')],
        tenantUploads: [upload('up', 'contoso.onmicrosoft.com', 'zip')],
      }),
      live(),
    );
    for (const text of [formatPlanText(p), formatPlanMarkdown(p)]) {
      const at = ['Package/zip', 'Flow/zip', 'Deployment/zip', 'TenantUpload/up'].map((k) => text.indexOf(k));
      expect(at.every((x) => x >= 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
    }
  });

  it('a renamed deployment with a change orders its state writes after the move record (regression: the two records of one key raced)', () => {
    const d = desired({
      packages: [pkg('zip')],
      flows: [flow('zip')],
      deployments: [dep('zip-renamed', 'zip', 'zip', { state: 'stopped' })],
    });
    const p = run(d, liveWith(), converged());
    const o = p.objects.find((x) => x.key === 'Deployment/zip-renamed')!;
    expect(o.movedFrom).toBe('Deployment/zip');
    const [move, ...rest] = o.actions.map((id) => p.actions.find((a) => a.id === id)!);
    expect(move).toMatchObject({ op: 'record', key: 'Deployment/zip-renamed' });
    const own = rest.filter((a) => a.key === 'Deployment/zip-renamed');
    expect(own.map((a) => a.op)).toEqual(['stop', 'record']);
    for (const a of own) expect(a.dependsOn).toContain(move!.id);
    expect(p.objects.some((x) => x.change === 'delete' || x.change === 'conflict')).toBe(false);
  });

  it('the plan header names the signer of a verified revision (text and markdown), and nothing when unverified', () => {
    const p = run(desired({ packages: [pkg('zip')] }), live());
    expect(formatPlanText(p)).not.toMatch(/signed by/i);
    p.signer = 'alice@example.com';
    expect(formatPlanText(p).split('\n')[0]).toBe('Revision r1 signed by alice@example.com');
    expect(formatPlanMarkdown(p)).toContain('Signed by alice@example.com');
  });

  it('markdown: titled with the commit, real changes in the open (not folded in <details>), capped under 60,000 characters for 1,200 objects', () => {
    const names = Array.from({ length: 1200 }, (_, i) => `zip-${i}-with-a-long-enough-name-to-make-rows-wide`);
    const p = run(desired({ packages: names.map((n) => pkg(n)), flows: names.map((n) => flow(n)) }), live());
    const text = formatPlanMarkdown(p, { commit: '0123456789abcdef0123456789abcdef01234567' });
    expect(text.startsWith('### packsync plan for commit `0123456789ab`')).toBe(true);
    expect(text.length).toBeLessThan(60_000);
    expect(text).not.toContain('<details>');
    expect(text).toMatch(/… and \d+ more object\(s\) not shown \(comment size limit\)/);
    // Without a commit the digest is named, as before.
    expect(formatPlanMarkdown(p)).toMatch(/^### packsync plan for `/);
  });

  it('creates again when an intent finds nothing live (the create never happened)', () => {
    const inv = emptyInventory();
    inv.intents['Flow/zip'] = { key: 'Flow/zip', op: 'create-flow', at: 'x', knownIds: [], match: {} };
    expect(ops(run(desired({ flows: [flow('zip')] }), live(), inv))).toEqual(['Flow/zip:create-flow']);
  });

  it('isolates errors: an unknown app fails its object and dependents only', () => {
    const d = desired({
      packages: [pkg('bad', '7-Zipp'), pkg('zip')],
      flows: [flow('bad', { package: 'bad' }), flow('zip')],
      deployments: [dep('bad', 'bad', 'bad'), dep('zip', 'zip', 'zip')],
    });
    const p = run(d, live());
    const by = Object.fromEntries(p.objects.map((o) => [o.key, o]));
    expect(by['Package/bad']!.change).toBe('error');
    expect(by['Package/bad']!.error!.message).toBe(
      'unknown catalog app "7-Zipp"; did you mean "7-Zip" (11111111-1111-4111-8111-111111111111)?',
    );
    expect(by['Flow/bad']!.change).toBe('skipped');
    expect(by['Deployment/bad']!.change).toBe('skipped');
    expect(by['Deployment/zip']!.change).toBe('create');
  });

  it('waits on a package that is still processing instead of failing', () => {
    const inv = converged();
    const d = desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip')] });
    const l = live({
      packages: [livePackage(P1, { state: 'Running' })],
      flows: [{ ...liveFlow(F1, 'zip'), details: liveFlow(F1, 'zip') }],
    });
    const p = run(d, l, inv);
    expect(p.objects.find((o) => o.key === 'Package/zip')!.change).toBe('waiting');
    const add = p.actions.find((a) => a.op === 'add-deployment')!;
    expect(add.dependsOn).toEqual([p.actions.find((a) => a.op === 'wait-package')!.id]);
  });

  it('skips suspended objects', () => {
    const d = desired({ packages: [pkg('zip', '7-Zip', '24.08', { suspend: true })] });
    const p = run(d, live());
    expect(p.objects[0]!.change).toBe('skipped');
    expect(p.actions).toEqual([]);
  });

  it('suspended-not-blocked: a suspended object is counted as suspended in the summary, not as blocked', () => {
    // Before, `suspend: true` read "1 blocked" in the plan's summary, as if something stopped it.
    const d = desired({ packages: [pkg('zip', '7-Zip', '24.08', { suspend: true })] });
    const p = run(d, live());
    expect(p.summary).toMatchObject({ blocked: 0, suspended: 1 });
    expect(formatPlanText(p, { color: false })).toMatch(/Plan: 0 to create, 0 to change, 0 to delete, 0 unchanged, 1 suspended\./);
  });

  it('resolves tenants by domain or display name, and lists candidates for unknown ones', () => {
    const inv = converged();
    const ok = run(desired({ packages: [pkg('zip')], tenantUploads: [upload('u', 'Contoso', 'zip')] }), liveWith(), inv);
    const up = ok.actions.find((a) => a.op === 'tenant-upload');
    expect(up?.op === 'tenant-upload' && up.tenantId).toBe(TENANT.id);
    const bad = run(desired({ packages: [pkg('zip')], tenantUploads: [upload('u', 'contoso.onmicrosoft.co', 'zip')] }), liveWith(), inv);
    expect(bad.objects.find((o) => o.key === 'TenantUpload/u')!.error!.message).toMatch(
      /unknown tenant "contoso.onmicrosoft.co"; did you mean "contoso.onmicrosoft.com/,
    );
  });

  it('does not depend on live state it did not read to declare objects missing', () => {
    expect(hashValue({ a: 1, b: [2, { c: 3 }] })).toBe(hashValue({ b: [2, { c: 3 }], a: 1 }));
    expect(APP_7ZIP.name).toBe('7-Zip');
  });
});
