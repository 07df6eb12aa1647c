import { appendFile, cp, mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadManifests } from '../../src/manifests/load.js';
import type { DeploymentSpec } from '../../src/manifests/model.js';
import { BASE_YAML, caseRepo } from './invalid-support.js';
import { tempDir } from '../support/temp-dir.js';

const EXAMPLES = fileURLToPath(new URL('../../examples', import.meta.url));

async function copyOfExamples(): Promise<string> {
  const dir = await tempDir('packsync-examples-');
  await cp(EXAMPLES, dir, { recursive: true });
  return dir;
}

async function repoWith(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('packsync-load-');
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
  return dir;
}

describe('examples/', () => {
  it('loads with zero problems and the expected objects', async () => {
    const r = await loadManifests(EXAMPLES);
    expect(r.problems).toEqual([]);
    expect(r.files).toHaveLength(11);
    expect(r.documents).toBe(11);
    const all = r.desired!;
    expect(all.root).toBe(EXAMPLES);
    // examples/baselines/standard-apps.yaml expands after the hand-written objects (docs/baselines.md).
    const byHand = <T extends { metadata: { name: string } }>(xs: T[]): T[] =>
      xs.filter((x) => !x.metadata.name.startsWith('standard-apps.'));
    const d = { ...all, packages: byHand(all.packages), flows: byHand(all.flows), deployments: byHand(all.deployments) };
    expect(all.flows.map((f) => f.metadata.name).filter((n) => n.startsWith('standard-apps.'))).toEqual([
      'standard-apps.notepad.pilot',
      'standard-apps.notepad.broad',
      'standard-apps.google-chrome.pilot',
      'standard-apps.google-chrome.broad',
      'standard-apps.keepass.pilot',
    ]);
    expect(all.baselines?.map((b) => [b.name, b.flows])).toEqual([['standard-apps', 5]]);
    expect(d.packages.map((p) => p.metadata.name)).toEqual(['contoso-agent', 'pwsh', 'seven-zip']);
    expect(d.flows.map((f) => f.metadata.name)).toEqual(['contoso-agent', 'pwsh', 'seven-zip']);
    expect(d.deployments.map((x) => [x.metadata.name, x.spec.state])).toEqual([
      ['contoso-agent-1-2-3', 'running'],
      ['pwsh', 'pending'],
      ['seven-zip', 'running'],
    ]);
    expect(d.tenantUploads.map((t) => t.spec)).toEqual([{ tenant: 'fabrikam.onmicrosoft.com', package: 'contoso-agent' }]);
    const agent = d.packages[0]!;
    expect(agent.content).toMatchObject({ dir: join(EXAMPLES, 'content/contoso-agent/1.2.3'), files: 2 });
    expect(agent.content?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(d.packages[2]!.spec.catalog).toEqual({
      app: '7-Zip',
      version: '24.08',
      scope: 'machine',
      scriptTemplate: 'Default (PSADT 3.10.2)',
      update: { track: 'latest', minAge: '2d', group: 'utilities' },
    });
    expect(d.packages[2]!.content).toBeUndefined();
  });

  it('every example file names the combined schema with a path that exists', async () => {
    const r = await loadManifests(EXAMPLES);
    for (const f of r.files) {
      const first = (await readFile(join(EXAMPLES, f), 'utf8')).split('\n')[0]!;
      const m = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
      expect(m, f).not.toBeNull();
      const target = join(EXAMPLES, f, '..', m![1]!);
      expect(target).toBe(fileURLToPath(new URL('../../schemas/v1/packsync.json', import.meta.url)));
      await expect(readFile(target, 'utf8')).resolves.toContain('"$id"');
    }
  });

  it('the sample repository the e2e tests write loads without problems', async () => {
    const { writeRepo } = await import('../support/manifests.js');
    for (const withCustom of [false, true]) {
      const r = await loadManifests(await writeRepo({ withCustom, wave: 2, contentRevision: 1 }));
      expect(r.problems).toEqual([]);
      expect(r.desired).not.toBeNull();
    }
  });
});

describe('content digest', () => {
  it('is stable across loads and locations, and changes when a byte, a name or a file changes', async () => {
    const a = await copyOfExamples();
    const b = await copyOfExamples();
    const digest = async (dir: string): Promise<string> => {
      const r = await loadManifests(dir);
      expect(r.problems).toEqual([]);
      return r.desired!.packages.find((p) => p.metadata.name === 'contoso-agent')!.content!.digest;
    };
    const original = await digest(a);
    expect(await digest(a)).toBe(original);
    expect(await digest(b)).toBe(original);
    expect(await digest(EXAMPLES)).toBe(original);

    const msi = join(b, 'content/contoso-agent/1.2.3/ContosoAgent.msi');
    const bytes = await readFile(msi);
    bytes[100] = bytes[100]! ^ 1;
    await writeFile(msi, bytes);
    const flipped = await digest(b);
    expect(flipped).not.toBe(original);
    bytes[100] = bytes[100] ^ 1;
    await writeFile(msi, bytes);
    expect(await digest(b)).toBe(original);

    await rename(join(b, 'content/contoso-agent/1.2.3/config/agent.json'), join(b, 'content/contoso-agent/1.2.3/config/agent2.json'));
    expect(await digest(b)).not.toBe(original);
    await rename(join(b, 'content/contoso-agent/1.2.3/config/agent2.json'), join(b, 'content/contoso-agent/1.2.3/config/agent.json'));
    await appendFile(join(b, 'content/contoso-agent/1.2.3/README.txt'), 'hello\n');
    const added = await loadManifests(b);
    expect(added.desired!.packages[0]!.content).toMatchObject({ files: 3 });
    expect(added.desired!.packages[0]!.content!.digest).not.toBe(original);
  });

  it('counts files and bytes, following symlinks that stay inside the content directory', async () => {
    const repo = await caseRepo({
      'p.yaml':
        'apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: p\nspec:\n  custom:\n    name: P\n    version: "1"\n    sourceType: zip\n    installCommand: setup.cmd\n    content: ./content/tool/\n',
    });
    await mkdir(join(repo, 'content/tool/sub'));
    await writeFile(join(repo, 'content/tool/sub/a.bin'), Buffer.alloc(1000, 1));
    await symlink(join(repo, 'content/tool/sub/a.bin'), join(repo, 'content/tool/alias.bin'));
    const r = await loadManifests(repo);
    expect(r.problems).toEqual([]);
    expect(r.desired!.packages.find((p) => p.metadata.name === 'p')!.content).toMatchObject({ files: 3, bytes: 9 + 1000 + 1000 });
    expect(r.desired!.packages.find((p) => p.metadata.name === 'p')!.spec.custom!.content).toBe('./content/tool/');
  });
});

describe('files and documents', () => {
  it('reads several documents per file, skipping empty ones, with 1-based document positions', async () => {
    const dir = await repoWith({
      'all.yml': `# leading comment\n${BASE_YAML}---\n# only a comment\n---\n`,
    });
    const r = await loadManifests(dir);
    expect(r.problems).toEqual([]);
    expect(r.documents).toBe(4);
    expect(r.desired!.packages.map((p) => p.source)).toEqual([
      { file: 'all.yml', line: 2, column: 1 },
      { file: 'all.yml', line: 11, column: 1 },
    ]);
    expect(r.desired!.flows.map((p) => p.source.line)).toEqual([20, 27]);
  });

  it('reports positions 1-based: a problem on the first character is 1:1', async () => {
    const dir = await repoWith({ 'x.yaml': 'kind: Nope\n' });
    const r = await loadManifests(dir);
    expect(r.problems.map((p) => [p.rule, p.line, p.column])).toEqual([
      ['schema.required', 1, 1],
      ['manifest.kind', 1, 7],
    ]);
  });

  it('walks folders recursively and in order, skipping hidden files and folders and node_modules', async () => {
    const bad = 'this: is not a manifest\n';
    const dir = await repoWith({
      'b/flows.yaml': BASE_YAML.split('---\n').slice(2).join('---\n'),
      'a/packages.YML': BASE_YAML.split('---\n').slice(0, 2).join('---\n'),
      'notes.txt': bad,
      '.github/workflows/ci.yaml': bad,
      '.gitlab-ci.yml': bad,
      'node_modules/x/y.yaml': bad,
    });
    const r = await loadManifests(dir);
    expect(r.problems).toEqual([]);
    expect(r.files).toEqual(['a/packages.YML', 'b/flows.yaml']);
  });

  it('treats YAML inside a custom package content directory as content, not manifests', async () => {
    const repo = await caseRepo({
      'p.yaml':
        'apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: p\nspec:\n  custom:\n    name: P\n    version: "1"\n    sourceType: msi\n    content: content/tool\n',
      'content/tool/settings.yaml': 'server: example\n',
    });
    const r = await loadManifests(repo);
    expect(r.problems).toEqual([]);
    expect(r.files).toEqual(['00-base.yaml', 'p.yaml']);
    expect(r.desired!.packages.find((p) => p.metadata.name === 'p')!.content!.files).toBe(2);
  });

  it('ignores symlinked manifests unless asked to follow them', async () => {
    const elsewhere = await repoWith({ 'flows.yaml': BASE_YAML });
    const dir = await repoWith({});
    await symlink(join(elsewhere, 'flows.yaml'), join(dir, 'linked.yaml'));
    expect((await loadManifests(dir)).files).toEqual([]);
    const followed = await loadManifests(dir, { followSymlinks: true });
    expect(followed.files).toEqual(['linked.yaml']);
    expect(followed.desired!.flows).toHaveLength(2);
  });

  it('warns about a directory without manifests and returns an empty desired set', async () => {
    const dir = await repoWith({ 'README.md': '# nothing\n' });
    const r = await loadManifests(dir);
    expect(r.problems.map((p) => [p.rule, p.severity])).toEqual([['manifest.none', 'warning']]);
    expect(r.desired).toEqual({ root: dir, packages: [], flows: [], deployments: [], tenantUploads: [] });
  });

  it('loads a single file: problems name it as given, content resolves against its folder', async () => {
    const repo = await caseRepo({
      'one.yaml':
        'apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: p\nspec:\n  custom:\n    name: P\n    version: "1"\n    sourceType: msi\n    content: content/tool\n---\napiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: f\nspec:\n  package: p\n  scope: users\n',
    });
    const file = join(repo, 'one.yaml');
    const r = await loadManifests(file);
    expect(r.files).toEqual([file]);
    expect(r.problems.map((p) => [p.file, p.rule, p.line, p.column])).toEqual([[file, 'schema.enum', 18, 10]]);
    await writeFile(file, (await readFile(file, 'utf8')).replace('scope: users', 'scope: user'));
    const ok = await loadManifests(file);
    expect(ok.problems).toEqual([]);
    expect(ok.desired!.root).toBe(repo);
    expect(ok.desired!.packages[0]!.content!.dir).toBe(join(repo, 'content/tool'));
  });

  it('keeps specs exactly as written: no defaults injected', async () => {
    const dir = await repoWith({
      'm.yaml': `${BASE_YAML}---\napiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels: { a: b }\nspec:\n  flow: seven-zip\n  package: seven-zip-24-08\n`,
    });
    const r = await loadManifests(dir);
    expect(r.problems).toEqual([]);
    expect(r.desired!.flows[0]!.spec).toEqual({ app: '7-Zip' });
    expect('name' in r.desired!.flows[0]!.spec).toBe(false);
    expect(r.desired!.deployments[0]).toEqual({
      apiVersion: 'packsync.dev/v1',
      kind: 'Deployment',
      metadata: { name: 'd', labels: { a: 'b' } },
      spec: { flow: 'seven-zip', package: 'seven-zip-24-08' },
      source: { file: 'm.yaml', line: 33, column: 1 },
      // Where the fields the planner checks against live were written (its errors point there).
      positions: {
        'spec.flow': { file: 'm.yaml', line: 39, column: 9 },
        'spec.package': { file: 'm.yaml', line: 40, column: 12 },
      },
    });
  });

  it('accepts a Flow with neither app nor package (a patch-group flow that takes any package)', async () => {
    const dir = await repoWith({
      'm.yaml': `${BASE_YAML}---\napiVersion: packsync.dev/v1\nkind: Flow\nmetadata: { name: f0 }\nspec:\n  name: Flow 0\n  patchGroup: 2f0c6a1e-1d2b-4c3d-8e9f-0a1b2c3d4e5f\n  flags: [radarTracking]\n---\napiVersion: packsync.dev/v1\nkind: Deployment\nmetadata: { name: d0 }\nspec:\n  flow: f0\n  package: pwsh-7-4-6\n  state: running\n  wave: 2\n`,
    });
    const r = await loadManifests(dir);
    expect(r.problems).toEqual([]);
    expect(r.desired!.flows.find((f) => f.metadata.name === 'f0')!.spec).toEqual({
      name: 'Flow 0',
      patchGroup: '2f0c6a1e-1d2b-4c3d-8e9f-0a1b2c3d4e5f',
      flags: ['radarTracking'],
    });
  });

  it('records where the fields checked against live were written, so plan errors can point at them', async () => {
    const dir = await repoWith({ 'm.yaml': BASE_YAML });
    const r = await loadManifests(dir);
    const zip = r.desired!.packages.find((p) => p.metadata.name === 'seven-zip-24-08')!;
    expect(zip.positions).toEqual({
      'spec.catalog.app': { file: 'm.yaml', line: 7, column: 10 },
      'spec.catalog.version': { file: 'm.yaml', line: 8, column: 14 },
    });
    expect(r.desired!.flows.find((f) => f.metadata.name === 'pwsh')!.positions).toEqual({
      'spec.app': { file: 'm.yaml', line: 31, column: 8 },
    });
  });

  it('keeps desired when there are only warnings', async () => {
    const dir = await repoWith({
      'm.yaml': `${BASE_YAML}---\napiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  flow: seven-zip\n  package: seven-zip-24-08\n  state: stopped\n  wave: 3\n`,
    });
    const r = await loadManifests(dir);
    expect(r.problems.map((p) => [p.rule, p.severity, p.line])).toEqual([['deployment.wave-ignored', 'warning', 41]]);
    expect(r.desired!.deployments[0]!.spec.wave).toBe(3);
  });
});

// ------------------------------------------------------------------ properties

const FLOWS = ['seven-zip', 'pwsh'] as const;
const PACKAGES = ['seven-zip-24-08', 'pwsh-7-4-6'] as const;
const STATES = ['pending', 'running', 'stopped'] as const;

const deploymentSpecArb: fc.Arbitrary<DeploymentSpec> = fc.record(
  {
    suspend: fc.boolean(),
    flow: fc.constantFrom(...FLOWS),
    package: fc.constantFrom(...PACKAGES),
    version: fc.string({ minLength: 1, maxLength: 12 }),
    state: fc.constantFrom(...STATES),
    wave: fc.integer({ min: 1, max: 50 }),
    contentRevision: fc.integer({ min: 0, max: 1_000_000 }),
  },
  { requiredKeys: ['flow', 'package'] },
);

const nameArb = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/);

function deploymentYaml(name: string, spec: DeploymentSpec): string {
  return stringify({ apiVersion: 'packsync.dev/v1', kind: 'Deployment', metadata: { name }, spec });
}

describe('properties', () => {
  it('a valid Deployment spec round-trips: stringify → load → the same spec', async () => {
    await fc.assert(
      fc.asyncProperty(nameArb, deploymentSpecArb, async (name, spec) => {
        const dir = await repoWith({ 'base.yaml': BASE_YAML, 'd.yaml': deploymentYaml(name, spec) });
        const r = await loadManifests(dir);
        expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
        expect(r.desired!.deployments).toHaveLength(1);
        expect(r.desired!.deployments[0]!.spec).toEqual(spec);
        expect(r.desired!.deployments[0]!.metadata).toEqual({ name });
      }),
      { numRuns: 60 },
    );
  });

  const FLAGS = ['startNewVersionsAutomatically', 'radarTracking', 'uninstallPreviousVersion'];

  it('one enum value replaced by any other string gives exactly one schema.enum problem, on its line', async () => {
    const target = fc.constantFrom('state', 'flag', 'scope');
    const bad = fc
      .string({ minLength: 0, maxLength: 30 })
      .filter((s) => !/[\n\r]/.test(s) && ![...STATES, 'machine', 'user', ...FLAGS].includes(s));
    await fc.assert(
      fc.asyncProperty(deploymentSpecArb, target, bad, fc.integer({ min: 0, max: 2 }), async (spec, field, value, index) => {
        let text: string;
        let line: number;
        if (field === 'state') {
          text = deploymentYaml('d', { ...spec, state: value as 'running' });
          line = text.split('\n').findIndex((l) => l.startsWith('  state:')) + 1;
        } else {
          const flags: string[] = [...FLAGS];
          if (field === 'flag') flags[index] = value;
          const flowSpec = { app: '7-Zip', flags, scope: field === 'scope' ? value : 'machine' };
          text = stringify({ apiVersion: 'packsync.dev/v1', kind: 'Flow', metadata: { name: 'f' }, spec: flowSpec });
          const lines = text.split('\n');
          line =
            field === 'scope'
              ? lines.findIndex((l) => l.startsWith('  scope:')) + 1
              : lines.findIndex((l) => l.startsWith('  flags:')) + 2 + index;
        }
        const dir = await repoWith({ 'base.yaml': BASE_YAML, 'm.yaml': text });
        const r = await loadManifests(dir);
        const errors = r.problems.filter((p) => p.severity === 'error');
        expect(errors.map((p) => [p.file, p.rule, p.line])).toEqual([['m.yaml', 'schema.enum', line]]);
        expect(r.desired).toBeNull();
      }),
      { numRuns: 80 },
    );
  });
});
