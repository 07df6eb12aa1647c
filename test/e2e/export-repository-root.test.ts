/**
 * `packsync export --out DIR` where DIR lies inside a repository (a folder with `.git` above it):
 * validate and plan resolve `content:` against that repository root, so the exported content paths
 * must too, and the printed `Next:` command must name a path that validates, adopts without any
 * API write, and then plans no change. Regression tests for the docs' own onboarding flow
 * (`git init; packsync export --out onboarding`, which then failed to validate) and for an export
 * into a sub-folder of the managed repository that refers to objects defined elsewhere in it.
 */
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import { cli } from '../support/cli.js';
import { git } from '../support/git.js';
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

async function start(): Promise<{ sim: TestSim; api: ApiClient; env: Record<string, string> }> {
  sim = await startTestSimulator();
  api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
  return { sim, api, env: { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') } };
}

async function installerFiles(): Promise<string> {
  const dir = await tempDir('packsync-content-');
  await writeFile(join(dir, 'setup.msi'), Buffer.alloc(40_000, 5));
  return dir;
}

/** A custom package with content, made outside packsync. */
async function unownedCustomPackage(s: TestSim, a: ApiClient): Promise<string> {
  const p = await a.createPackage({ name: 'Onboard Tool', version: '1.0', sourceType: 'msi' });
  await a.uploadContentDirectory(p.id, await installerFiles());
  await s.advance(600);
  return p.id;
}

/** The path the export's `Next: packsync validate X && packsync apply X --adopt` line names. */
function nextTarget(stdout: string): string {
  const m = /^Next: packsync validate (\S+) && packsync apply (\S+) --adopt$/m.exec(stdout);
  expect(m?.[1]).toBeDefined();
  expect(m?.[2]).toBe(m?.[1]);
  return m![1]!;
}

/** The `content:` of every custom package in one exported file. */
async function contentPaths(file: string): Promise<string[]> {
  return parseAllDocuments(await readFile(file, 'utf8'))
    .map((d) => (d.toJS() as { spec: { custom?: { content: string } } }).spec.custom?.content)
    .filter((c): c is string => c !== undefined);
}

/** Puts installer files in every folder the exported content paths point at (from `root`). */
async function fillContent(root: string, paths: readonly string[]): Promise<void> {
  const src = await installerFiles();
  for (const p of paths) {
    // The export made the folder where the path points: the operator only adds files.
    expect(await readdir(join(root, p))).toEqual([]);
    await cp(src, join(root, p), { recursive: true });
  }
}

/**
 * The onboarding flow as the docs give it, with what `Next:` named: validate, plan --adopt, apply
 * --adopt without any API write, then a plan with nothing to do.
 */
async function onboard(s: TestSim, target: string, cwd: string, env: Record<string, string>): Promise<void> {
  const valid = await cli(['validate', target], env, cwd);
  expect(valid.stderr).toBe('');
  expect(valid.code).toBe(0);
  const plan = await cli(['plan', target, '--adopt'], env, cwd);
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  const writes = (await s.journal(true)).length;
  const applied = await cli(['apply', '--auto-approve', target, '--adopt'], env, cwd);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect((await s.journal(true)).length).toBe(writes);
  const after = await cli(['plan', target, '--detailed-exitcode'], env, cwd);
  expect(after.code).toBe(0);
}

describe('export into a folder inside a repository', () => {
  it('writes content paths from the repository root, so `git init; export --out onboarding` validates and adopts as Next says', async () => {
    const { sim: s, api: a, env } = await start();
    await unownedCustomPackage(s, a);
    const cwd = await tempDir('packsync-onboard-');
    await git(cwd, 'init', '-q', '.');

    const r = await cli(['export', '--out', 'onboarding'], env, cwd);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const paths = await contentPaths(join(cwd, 'onboarding', 'packages.yaml'));
    expect(paths).toEqual(['onboarding/content/onboard-tool-1.0']);
    // The content paths need the repository root, and the working directory is it.
    const target = nextTarget(r.stdout);
    expect(target).toBe('.');

    await fillContent(cwd, paths);
    await onboard(s, target, cwd, { ...env, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') });
  });

  it('names the repository root in Next when the export refers to objects the managed repository defines', async () => {
    const { sim: s, api: a, env } = await start();
    const repo = await writeRepo();
    await git(repo, 'init', '-q', '.');
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);

    // Outside packsync: a custom package, an older 7-Zip deployed in the owned flow `seven-zip`, and
    // the owned 7-Zip package uploaded to a tenant.
    await unownedCustomPackage(s, a);
    const inventory = JSON.parse(await readFile(join(env.PACKSYNC_STATE_DIR!, 'inventory.json'), 'utf8')) as {
      objects: Record<string, { id: string }>;
    };
    const ownedId = (key: string): string => inventory.objects[key]!.id;
    const sevenZip = (await a.searchApps({ disablePaging: true })).items.find((x) => x.name === '7-Zip');
    const tenant = (await a.listTenants({ disablePaging: true })).items.find((t) => t.adminConsentGranted);
    if (!sevenZip || !tenant) throw new Error('fixture app or tenant missing');
    const older = await a.importApp(sevenZip.id, { version: '24.07', scope: 1 });
    await s.advance(600);
    await a.addDeployment(ownedId('Flow/seven-zip'), { packageId: older, startNow: false });
    await a.uploadToTenant(tenant.id, { packageId: ownedId('Package/seven-zip-24-08') });
    await s.advance(600);

    const out = join(repo, 'onboarding');
    const r = await cli(['export', '--out', out], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await readFile(join(out, 'deployments.yaml'), 'utf8')).toMatch(/flow: seven-zip\n/);
    expect(await readFile(join(out, 'tenant-uploads.yaml'), 'utf8')).toMatch(/package: seven-zip-24-08\n/);
    const paths = await contentPaths(join(out, 'packages.yaml'));
    expect(paths).toEqual(['onboarding/content/onboard-tool-1.0']);
    const target = nextTarget(r.stdout);
    expect(target).toBe(repo);

    await fillContent(repo, paths);
    await onboard(s, target, process.cwd(), env);
  });

  it('export-next-outside-root: an export beside the managed folder, in no repository, says its references are defined outside it', async () => {
    const { sim: s, api: a, env } = await start();
    const parent = await tempDir('packsync-plain-');
    const managed = join(parent, 'on1');
    await mkdir(managed);
    await writeRepo().then((r) => cp(r, managed, { recursive: true }));
    expect((await cli(['apply', '--auto-approve', 'on1'], env, parent)).code).toBe(0);
    const inventory = JSON.parse(await readFile(join(env.PACKSYNC_STATE_DIR!, 'inventory.json'), 'utf8')) as {
      objects: Record<string, { id: string }>;
    };
    const sevenZip = (await a.searchApps({ disablePaging: true })).items.find((x) => x.name === '7-Zip');
    if (!sevenZip) throw new Error('fixture app missing');
    const older = await a.importApp(sevenZip.id, { version: '24.07', scope: 1 });
    await s.advance(600);
    await a.addDeployment(inventory.objects['Flow/seven-zip']!.id, { packageId: older, startNow: false });

    const r = await cli(['export', '--out', 'on2'], env, parent);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await readFile(join(parent, 'on2', 'deployments.yaml'), 'utf8')).toMatch(/flow: seven-zip\n/);
    // `validate on2` cannot pass: the flow it deploys to is defined in on1. Next says so instead of naming on2.
    expect((await cli(['validate', 'on2'], env, parent)).code).toBe(1);
    expect(r.stdout).not.toMatch(/^Next: packsync validate/m);
    expect(r.stdout).toContain(
      'Next: on2 refers to objects packsync owns whose manifests are outside on2 (Flow/seven-zip in on1/flows.yaml): move the exported files into the repository that defines them, then run packsync validate and packsync apply --adopt on that repository.\n',
    );
    // Following it: the files moved into on1 validate, are adopted with no write, and plan nothing.
    for (const f of ['packages.yaml', 'deployments.yaml']) await cp(join(parent, 'on2', f), join(managed, `exported-${f}`));
    await onboard(s, 'on1', parent, env);
  });

  it('keeps content paths and Next on --out when --out is the repository root', async () => {
    const { sim: s, api: a, env } = await start();
    await unownedCustomPackage(s, a);
    const out = join(await tempDir('packsync-export-'), 'clone');
    await mkdir(out);
    await git(out, 'init', '-q', '.');
    const r = await cli(['export', '--out', out], env);
    expect(r.code).toBe(0);
    const paths = await contentPaths(join(out, 'packages.yaml'));
    expect(paths).toEqual(['content/onboard-tool-1.0']);
    expect(nextTarget(r.stdout)).toBe(out);
    await fillContent(out, paths);
    await onboard(s, out, process.cwd(), { ...env, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') });
  });
});
