/**
 * `packsync export` brings an existing account under git: the exported manifests validate (once the
 * custom package's files are put in place), a fresh state directory adopts everything with
 * `apply --adopt` without any API write, and the next plan has nothing to do. It writes every
 * field the service returns, never clobbers a directory, and skips what packsync already owns.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import type { V1PackageCreateViewModel } from '../../src/api/wire/index.js';
import { cli } from '../support/cli.js';
import type { CliRun } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim | undefined;
let api: ApiClient | undefined;
afterEach(async () => {
  await api?.close();
  await sim?.close();
  sim = undefined;
  api = undefined;
});

async function start(fleet: 'small' | 'large' = 'small'): Promise<{ sim: TestSim; api: ApiClient; env: Record<string, string> }> {
  sim = await startTestSimulator({ fleet });
  api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
  return { sim, api, env: { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') } };
}

/** Every apply in this file goes through here: without a terminal, apply needs `--auto-approve`. */
function apply(args: string[], env: Record<string, string>): Promise<CliRun> {
  return cli(['apply', '--auto-approve', ...args], env);
}

/** The YAML documents of one exported file, as plain objects. */
async function docs(file: string): Promise<{ kind: string; metadata: { name: string }; spec: Record<string, unknown> }[]> {
  return parseAllDocuments(await readFile(file, 'utf8')).map(
    (d) => d.toJS() as { kind: string; metadata: { name: string }; spec: Record<string, unknown> },
  );
}

async function contentDir(): Promise<string> {
  const dir = await tempDir('packsync-content-');
  await writeFile(join(dir, 'setup.exe'), Buffer.alloc(70_000, 3));
  await writeFile(join(dir, 'config.json'), '{"server":"https://agent.contoso.example"}\n');
  return dir;
}

/** Puts installer files in every content directory the export asked for. */
async function fillContent(out: string): Promise<void> {
  const src = await contentDir();
  for (const d of await readdir(join(out, 'content'))) await cp(src, join(out, 'content', d), { recursive: true });
}

const PSADT = 'Default (PSADT 3.10.2)';

/** A custom package with every field the create call takes (the file rule's operator is 5: greaterThanOrEqual). */
function fullCustomBody(templateId: string): V1PackageCreateViewModel {
  return {
    name: 'Contoso Agent',
    publisher: 'Contoso Ltd',
    version: '1.2.3',
    sourceType: 'exe',
    installCommand: 'setup.exe /S /norestart',
    uninstallCommand: '"C:\\Program Files\\Contoso\\uninstall.exe" /S',
    userContext: true,
    runAnalysis: true,
    scriptTemplateId: templateId,
    detectionRules: [
      {
        type: 'file',
        path: 'C:\\Program Files\\Contoso',
        fileName: 'agent.exe',
        is32Bit: false,
        operator: 5,
        targetVersion: '1.2.3',
        description: 'agent binary',
      },
      {
        type: 'registry',
        keyPath: 'HKEY_LOCAL_MACHINE\\SOFTWARE\\Contoso\\Agent',
        valueName: 'Version',
        operator: 1,
        targetVersion: '1.2.3',
      },
      { type: 'msi', productCode: '{5F3A1C2B-0000-4000-8000-000000000001}' },
      { type: 'script', scriptContent: 'if (Test-Path "C:\\Contoso") { "installed" }' },
    ],
  };
}

interface Seeded {
  fullId: string;
  toolId: string;
  consenting: string[];
  noConsent: string;
}

/**
 * Builds an account outside packsync, through the API: a custom package with every field in a flow,
 * a plain custom package in no flow uploaded to two tenants (and to one without admin consent,
 * where the upload fails), a catalog package with scope and script template in a flow, and a
 * catalog package in no flow.
 */
async function seed(s: TestSim, a: ApiClient): Promise<Seeded> {
  const templates = (await a.listTemplates({ disablePaging: true })).items;
  const psadt = templates.find((t) => t.name === PSADT);
  const apps = (await a.searchApps({ disablePaging: true })).items;
  const sevenZip = apps.find((x) => x.name === '7-Zip');
  const pwsh = apps.find((x) => x.name === 'PowerShell 7');
  const tenants = (await a.listTenants({ disablePaging: true })).items;
  if (!psadt || !sevenZip || !pwsh) throw new Error('fixture apps or templates missing');
  const files = await contentDir();

  const full = await a.createPackage(fullCustomBody(psadt.id));
  await a.uploadContentDirectory(full.id, files);
  const tool = await a.createPackage({ name: 'Contoso Tool', version: '2.0.0', sourceType: 'msi' });
  await a.uploadContentDirectory(tool.id, files);
  const zip = await a.importApp(sevenZip.id, { version: '24.08', scope: 2, scriptTemplateId: psadt.id });
  await a.importApp(pwsh.id, { version: '7.4.6', scope: 1 });
  await s.advance(600);

  const agentFlow = await a.createFlow({ name: 'Contoso Agent', packageId: full.id });
  await a.addDeployment(agentFlow, { packageId: full.id, startNow: true });
  const zipFlow = await a.createFlow({ name: '7-Zip', appId: sevenZip.id, scope: 2, flags: 2 });
  await a.addDeployment(zipFlow, { packageId: zip, startNow: false });

  const consenting = tenants
    .filter((t) => t.adminConsentGranted)
    .slice(0, 2)
    .map((t) => t.id);
  const noConsent = tenants.find((t) => !t.adminConsentGranted)?.id;
  if (consenting.length < 2 || !noConsent) throw new Error('fixture tenants missing');
  for (const t of [...consenting, noConsent]) await a.uploadToTenant(t, { packageId: tool.id });
  await s.advance(600);
  return { fullId: full.id, toolId: tool.id, consenting, noConsent };
}

describe('export', () => {
  it('writes manifests that validate and are adopted, not recreated', async () => {
    const { sim: s, env } = await start();
    const repo = await writeRepo({ withCustom: true });
    // 7-Zip follows the catalog in git: a version policy is git's alone, never exported (issue 22.6).
    const pkgs = join(repo, 'packages.yaml');
    await writeFile(pkgs, (await readFile(pkgs, 'utf8')).replace('version: "24.08"', 'version: "24.08"\n    update: { track: latest }'));
    await writeFile(
      join(repo, 'custom-flow.yaml'),
      'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: { name: agent }\nspec: { name: Contoso Agent, package: contoso-agent }\n---\n' +
        'apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata: { name: agent-1 }\nspec: { flow: agent, package: contoso-agent, state: running }\n',
    );
    expect((await apply([repo], env)).code).toBe(0);
    const out = await tempDir('packsync-export-');
    // Another state directory (--state-dir wins over the environment) owns nothing: everything is exported.
    const r = await cli(['export', '--out', out, '--state-dir', await tempDir('packsync-state-')], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Exported 3 packages, 3 flows, 3 deployments and 1 tenant uploads .*; 0 already owned by packsync/);
    expect(r.stdout).toMatch(/1 custom package\(s\) need their files/);
    expect((await readdir(out)).sort()).toEqual(['content', 'deployments.yaml', 'flows.yaml', 'packages.yaml', 'tenant-uploads.yaml']);
    expect(await readFile(join(out, 'flows.yaml'), 'utf8')).toMatch(/flags:\n\s+- startNewVersionsAutomatically\n\s+- radarTracking/);
    expect(await readFile(join(out, 'packages.yaml'), 'utf8')).not.toMatch(/update:/);
    // The schema the README tells editors to use (regression: an unhosted https://packsync.dev URL).
    expect((await readFile(join(out, 'flows.yaml'), 'utf8')).split('\n')[0]).toBe(
      '# yaml-language-server: $schema=./node_modules/packsync/schemas/v1/packsync.json',
    );
    // As exported, the custom package has no files yet: validation says so, with the position.
    const empty = await cli(['validate', out], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/packages\.yaml:\d+:\d+: .*content/);
    const [contentDir] = await readdir(join(out, 'content'));
    await cp(join(repo, 'content/contoso-agent'), join(out, 'content', contentDir!), { recursive: true });
    const valid = await cli(['validate', out], env);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    const fresh = { ...env, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
    const before = (await s.writes()).length;
    const plan = await cli(['plan', out, '--adopt'], fresh);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/Plan: 0 to create/);
    const applied = await apply([out, '--adopt'], fresh);
    expect(applied.code).toBe(0);
    expect((await s.writes()).length).toBe(before);
    expect((await cli(['plan', out], fresh)).stdout).toMatch(/No changes/);
  });

  it('round-trips a large account with every package field: export, validate, apply --adopt, then a plan with no changes', async () => {
    const { sim: s, api: a, env } = await start('large');
    const seeded = await seed(s, a);
    // The large fleet: upload lists are read from all 50 tenants.
    expect((await a.listTenants({ disablePaging: true })).items).toHaveLength(50);
    const out = join(await tempDir('packsync-export-'), 'repo');
    const r = await cli(['export', '--out', out], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /Exported 4 packages, 2 flows, 2 deployments and 2 tenant uploads .*; 0 already owned by packsync .* and 1 others skipped\./,
    );

    const packages = await docs(join(out, 'packages.yaml'));
    const agent = packages.find((p) => (p.spec.custom as { name?: string } | undefined)?.name === 'Contoso Agent');
    // Every field the service returns, operators by name; runAnalysis is not returned (docs/manifests.md).
    expect(agent?.spec).toEqual({
      custom: {
        name: 'Contoso Agent',
        publisher: 'Contoso Ltd',
        version: '1.2.3',
        sourceType: 'exe',
        installCommand: 'setup.exe /S /norestart',
        uninstallCommand: '"C:\\Program Files\\Contoso\\uninstall.exe" /S',
        userContext: true,
        scriptTemplate: PSADT,
        detectionRules: [
          {
            type: 'file',
            path: 'C:\\Program Files\\Contoso',
            fileName: 'agent.exe',
            is32Bit: false,
            operator: 'greaterThanOrEqual',
            targetVersion: '1.2.3',
            description: 'agent binary',
          },
          {
            type: 'registry',
            keyPath: 'HKEY_LOCAL_MACHINE\\SOFTWARE\\Contoso\\Agent',
            valueName: 'Version',
            operator: 'equal',
            targetVersion: '1.2.3',
          },
          { type: 'msi', productCode: '{5F3A1C2B-0000-4000-8000-000000000001}' },
          { type: 'script', scriptContent: 'if (Test-Path "C:\\Contoso") { "installed" }' },
        ],
        content: `content/${agent?.metadata.name ?? ''}`,
      },
    });
    expect(packages.map((p) => p.spec.catalog).filter(Boolean)).toEqual([
      { app: '7-Zip', version: '24.08', scope: 'user', scriptTemplate: PSADT },
      { app: 'PowerShell 7', version: '7.4.6', scope: 'machine' },
    ]);

    await fillContent(out);
    const valid = await cli(['validate', out], env);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);

    const fresh = { ...env, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
    const beforeApply = (await s.journal(true)).length;
    const applied = await apply([out, '--adopt'], fresh);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect((await s.journal(true)).length).toBe(beforeApply);

    const beforePlan = (await s.journal(true)).length;
    const plan = await cli(['plan', out, '--detailed-exitcode'], fresh);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/No changes/);
    expect((await s.journal(true)).length).toBe(beforePlan);

    // The spec the planner recorded from the exported manifest is the package as it was created,
    // so writing the original manifest back is not a change (runAnalysis aside: not returned).
    const inventory = JSON.parse(await readFile(join(fresh.PACKSYNC_STATE_DIR, 'inventory.json'), 'utf8')) as {
      objects: Record<string, { kind: string; id: string; spec: unknown }>;
    };
    const entry = Object.values(inventory.objects).find((e) => e.kind === 'Package' && e.id === seeded.fullId);
    const { runAnalysis: _notReturned, ...created } = fullCustomBody((await a.getPackage(seeded.fullId)).scriptTemplateId ?? '');
    expect(entry?.spec).toEqual({ custom: created });
  });

  it('exports packages that are in no flow and tenant uploads, and skips a failed upload', async () => {
    const { sim: s, api: a, env } = await start();
    const seeded = await seed(s, a);
    const out = await tempDir('packsync-export-');
    const r = await cli(['export', '--out', out], env);
    expect(r.code).toBe(0);
    const noConsent = (await a.getTenant(seeded.noConsent)).defaultDomain;
    expect(r.stdout).toContain(
      `skipped 1 TenantUpload: its last upload task ended Error, and adopting it would upload again: ${noConsent} / ${seeded.toolId}`,
    );

    const names = new Map((await docs(join(out, 'packages.yaml'))).map((p) => [p.metadata.name, p.spec]));
    const flows = await docs(join(out, 'flows.yaml'));
    const inFlows = new Set(flows.map((f) => f.spec.package).filter(Boolean));
    expect([...names.keys()].filter((n) => !inFlows.has(n)).sort()).toEqual(['7-zip-24.08', 'contoso-tool-2.0.0', 'powershell-7-7.4.6']);
    expect(names.get('contoso-tool-2.0.0')).toEqual({
      custom: { name: 'Contoso Tool', version: '2.0.0', sourceType: 'msi', content: 'content/contoso-tool-2.0.0' },
    });

    const uploads = await docs(join(out, 'tenant-uploads.yaml'));
    const state = await s.state();
    const domains = (await a.listTenants({ disablePaging: true })).items
      .filter((t) => seeded.consenting.includes(t.id))
      .map((t) => t.defaultDomain);
    expect(uploads.map((u) => u.spec).sort((x, y) => String(x.tenant).localeCompare(String(y.tenant)))).toEqual(
      domains.sort().map((tenant) => ({ tenant, package: 'contoso-tool-2.0.0' })),
    );
    expect(state.uploads.filter((u) => u.packageId === seeded.toolId && u.state === 'Completed')).toHaveLength(2);

    await fillContent(out);
    const fresh = { ...env, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
    const before = (await s.journal(true)).length;
    expect((await apply([out, '--adopt'], fresh)).code).toBe(0);
    const plan = await cli(['plan', out], fresh);
    expect(plan.stdout).toMatch(/No changes/);
    expect((await s.journal(true)).length).toBe(before);
  });

  it('writes one manifest for live objects that share an identity: the one --adopt takes', async () => {
    const { sim: s, api: a, env } = await start();
    const sevenZip = (await a.searchApps({ disablePaging: true })).items.find((x) => x.name === '7-Zip');
    if (!sevenZip) throw new Error('no 7-Zip in the catalog');
    const older = await a.importApp(sevenZip.id, { version: '24.08', scope: 1 });
    await s.advance(60);
    const newer = await a.importApp(sevenZip.id, { version: '24.08', scope: 1 });
    await s.advance(600);
    const out = await tempDir('packsync-export-');
    const r = await cli(['export', '--out', out], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Exported 1 packages, 0 flows/);
    expect(r.stdout).toContain(
      `skipped 1 Package: a newer live package has the same name and version (or app, version and scope), and --adopt takes the newest: 7-Zip 24.08 (${older})`,
    );
    expect((await docs(join(out, 'packages.yaml'))).map((d) => d.metadata)).toEqual([
      { name: '7-zip-24.08', annotations: { 'packsync.dev/exported-from': newer } },
    ]);
  });

  it('export-duplicate-deployments: writes one Deployment per (flow, package), the newest --adopt takes, and names the others skipped', async () => {
    const { sim: s, api: a, env } = await start();
    const sevenZip = (await a.searchApps({ disablePaging: true })).items.find((x) => x.name === '7-Zip');
    if (!sevenZip) throw new Error('no 7-Zip in the catalog');
    const pkg = await a.importApp(sevenZip.id, { version: '24.07', scope: 1 });
    await s.advance(600);
    const flow = await a.createFlow({ name: 'Twice' });
    const first = await a.addDeployment(flow, { packageId: pkg, startNow: true });
    await s.advance(60);
    const second = await a.addDeployment(flow, { packageId: pkg, startNow: false });
    const out = await tempDir('packsync-export-');
    const r = await cli(['export', '--out', out], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Exported 1 packages, 1 flows, 1 deployments and 0 tenant uploads .* and 1 others skipped\./);
    expect(r.stdout).toContain(
      `skipped 1 Deployment: a newer live deployment of the same flow and package exists, and --adopt takes the newest: Twice / ${pkg} (${first})`,
    );
    expect((await docs(join(out, 'deployments.yaml'))).map((d) => [d.metadata.name, d.spec])).toEqual([
      ['twice-24.07', { flow: 'twice', package: '7-zip-24.07', state: 'pending' }],
    ]);
    const valid = await cli(['validate', out], env);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    // Adopted as written: the newest deployment, with no API write, and nothing left to plan.
    const fresh = { ...env, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
    const writes = (await s.journal(true)).length;
    expect((await apply([out, '--adopt'], fresh)).code).toBe(0);
    expect((await s.journal(true)).length).toBe(writes);
    const inventory = JSON.parse(await readFile(join(fresh.PACKSYNC_STATE_DIR, 'inventory.json'), 'utf8')) as {
      objects: Record<string, { id: string }>;
    };
    expect(inventory.objects['Deployment/twice-24.07']?.id).toBe(second);
    const plan = await cli(['plan', out, '--detailed-exitcode'], fresh);
    expect(plan.code).toBe(0);
  });

  it('warns when the state holds a create an interrupted apply never recorded', async () => {
    const { env } = await start();
    const stateDir = await tempDir('packsync-state-');
    const intent = {
      key: 'Package/seven-zip-24-08',
      op: 'import-package',
      at: '2026-01-01T00:00:00Z',
      knownIds: [],
      match: { appId: 'x', version: '24.08', scope: '1' },
    };
    await writeFile(join(stateDir, 'inventory.json'), JSON.stringify({ version: 1, objects: {}, intents: { [intent.key]: intent } }));
    const r = await cli(['export', '--out', join(await tempDir('packsync-export-'), 'out'), '--state-dir', stateDir], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Warning: the state has 1 unresolved create\(s\) from an interrupted apply \(Package\/seven-zip-24-08\)/);
  });

  it('refuses a non-empty --out without --force and writes nothing; --force keeps existing files', async () => {
    const { sim: s, api: a, env } = await start();
    await seed(s, a);
    const out = await tempDir('packsync-export-');
    await writeFile(join(out, 'packages.yaml'), '# my hand edits\n');
    const before = (await s.journal()).length;
    const refused = await cli(['export', '--out', out], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${out} is not empty (packages.yaml); refusing to write into it`);
    expect(refused.stderr).toMatch(/--force/);
    expect(await readdir(out)).toEqual(['packages.yaml']);
    // Refused before anything was read: not one API call.
    expect((await s.journal()).length).toBe(before);

    const forced = await cli(['export', '--out', out, '--force'], env);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/Wrote packages-2\.yaml, flows\.yaml, deployments\.yaml, tenant-uploads\.yaml\./);
    expect(await readFile(join(out, 'packages.yaml'), 'utf8')).toBe('# my hand edits\n');
    expect(await readFile(join(out, 'packages-2.yaml'), 'utf8')).toMatch(/kind: Package/);
  });

  it('skips objects the inventory owns, so exporting into the managed repository adds no duplicates', async () => {
    const { sim: s, api: a, env } = await start();
    const repo = await writeRepo({ withCustom: true });
    expect((await apply([repo], env)).code).toBe(0);

    // Everything live is packsync's: nothing to write.
    const none = join(await tempDir('packsync-export-'), 'out');
    const r0 = await cli(['export', '--out', none], env);
    expect(r0.code).toBe(0);
    expect(r0.stdout).toMatch(/Exported 0 packages, 0 flows, 0 deployments and 0 tenant uploads .*; 8 already owned by packsync/);
    await expect(readdir(none)).rejects.toThrow(/ENOENT/);

    // One package made outside packsync: only that one is written into the repository.
    const apps = (await a.searchApps({ disablePaging: true })).items;
    const firefox = apps.find((x) => x.name === 'Mozilla Firefox') ?? apps.find((x) => x.name !== '7-Zip' && x.name !== 'PowerShell 7');
    if (!firefox) throw new Error('no catalog app');
    await a.importApp(firefox.id, { scope: 1 });
    await s.advance(600);
    const before = await readFile(join(repo, 'packages.yaml'), 'utf8');
    const r = await cli(['export', '--out', repo, '--force'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Exported 1 packages, 0 flows, 0 deployments and 0 tenant uploads .*; 8 already owned by packsync/);
    expect(await readFile(join(repo, 'packages.yaml'), 'utf8')).toBe(before);
    const added = await docs(join(repo, 'packages-2.yaml'));
    expect(added.map((d) => (d.spec.catalog as { app: string }).app)).toEqual([firefox.name]);

    const valid = await cli(['validate', repo], env);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    const writes = (await s.journal(true)).length;
    expect((await apply([repo, '--adopt'], env)).code).toBe(0);
    expect((await cli(['plan', repo], env)).stdout).toMatch(/No changes/);
    expect((await s.journal(true)).length).toBe(writes);
  });
});
