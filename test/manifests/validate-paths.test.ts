/**
 * `validate PATH...` (issue 14, operator review rows 32, 34, 37): several paths at once, names
 * resolved against the repository root while only the given files are reported, YAML errors at
 * the opening token and listed first, no cascaded reference errors for names a broken file defines.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRepository, repositoryRoot } from '../../src/manifests/load.js';
import { cli } from '../support/cli.js';
import { git } from '../support/git.js';
import { tempDir } from '../support/repo.js';

const pkg = (name: string, version = '"24.08"'): string =>
  `apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: ${name}\nspec:\n  catalog:\n    app: 7-Zip\n    version: ${version}\n`;
const flow = (name: string): string => `apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: ${name}\nspec:\n  app: 7-Zip\n`;
const dep = (name: string, f: string, p: string): string =>
  `apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  flow: ${f}\n  package: ${p}\n  state: running\n`;

/** A git repository (a `.git` folder is all the root lookup needs) with manifests in sub-folders. */
async function repo(files: Record<string, string>, marker: '.git' | '.packsyncignore' | null = '.git'): Promise<string> {
  const dir = await tempDir('packsync-validate-paths-');
  if (marker === '.git') await mkdir(join(dir, '.git'));
  if (marker === '.packsyncignore') await writeFile(join(dir, '.packsyncignore'), '');
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
  return dir;
}

describe('validate PATH...', () => {
  it('accepts several files and folders at once and reports only them', async () => {
    const dir = await repo({
      'packages/seven-zip.yaml': pkg('seven-zip-24-08'),
      'flows/seven-zip.yaml': flow('seven-zip'),
      'deployments/a.yaml': dep('a', 'seven-zip', 'seven-zip-24-08'),
      'deployments/b.yaml': dep('b', 'seven-zip', 'pwsh-7-4-6'),
      'packages/pwsh.yaml': pkg('pwsh-7-4-6', '"24.07"'),
      'tenant-uploads/broken.yaml': 'apiVersion: packsync.dev/v1\nkind: TenantUpload\nmetadata:\n  name: t\nspec: {}\n',
    });
    const r = await cli(['validate', 'deployments/a.yaml', 'flows/seven-zip.yaml', 'packages/'], {}, dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('4 files, 4 documents valid (2 packages, 1 flow, 1 deployment, 0 tenant uploads)\n');
    // The broken tenant upload is reported as soon as it is one of the given paths.
    const all = await cli(['validate', 'deployments', 'tenant-uploads'], {}, dir);
    expect(all.code).toBe(1);
    expect(all.stderr).toMatch(/^tenant-uploads\/broken\.yaml:5:1: TenantUpload "t": missing required field spec\.package/);
  });

  it('resolves the references of a single file (as pre-commit passes them) against the repository root', async () => {
    const dir = await repo({
      'manifests/packages.yaml': pkg('seven-zip-24-08'),
      'manifests/flows.yaml': flow('seven-zip'),
      'manifests/deployments/seven-zip.yaml': dep('seven-zip-24-08', 'seven-zip', 'seven-zip-24-08'),
      'manifests/deployments/typo.yaml': dep('typo', 'seven-zp', 'seven-zip-24-08'),
    });
    const ok = await cli(['validate', 'seven-zip.yaml'], {}, join(dir, 'manifests', 'deployments'));
    expect(ok).toEqual({ code: 0, stdout: '1 file, 1 document valid (0 packages, 0 flows, 1 deployment, 0 tenant uploads)\n', stderr: '' });
    // A reference that names nothing in the repository is still an error, with a suggestion from it.
    const bad = await cli(['validate', 'manifests/deployments/typo.yaml'], {}, dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      'manifests/deployments/typo.yaml:6:9: Deployment "typo": spec.flow "seven-zp" does not name a Flow in this repository (did you mean "seven-zip"?)\n1 error: the manifests are not valid.\n',
    );
  });

  it('takes the nearest folder with .git or .packsyncignore as the root, unless that repository ignores the path', async () => {
    const dir = await repo({ 'a/b/c.yaml': flow('c') }, '.packsyncignore');
    await writeFile(join(dir, '.packsyncignore'), 'cases/\n');
    await mkdir(join(dir, 'cases', 'one'), { recursive: true });
    expect(await repositoryRoot(join(dir, 'a', 'b'))).toBe(dir);
    expect(await repositoryRoot(join(dir, 'cases', 'one'))).toBe(join(dir, 'cases', 'one'));
    const plain = await repo({ 'x/y.yaml': flow('y') }, null);
    expect(await repositoryRoot(join(plain, 'x'))).toBe(join(plain, 'x'));
    // Without a marker, the common parent of the given paths is the root: a's names are known to b.
    const loose = await repo(
      { 'one/f.yaml': flow('seven-zip'), 'one/p.yaml': pkg('seven-zip-24-08'), 'two/d.yaml': dep('d', 'seven-zip', 'seven-zip-24-08') },
      null,
    );
    const loaded = await loadRepository([join(loose, 'one'), join(loose, 'two', 'd.yaml')]);
    expect(loaded.root).toBe(loose);
    expect(loaded.problems).toEqual([]);
    expect(loaded.files).toEqual(['one/f.yaml', 'one/p.yaml', 'two/d.yaml']);
  });

  it('reports a name defined twice on the given file even when the first is in a file not given, in one path base', async () => {
    const dir = await repo({ 'repo/a-packages.yaml': pkg('seven-zip-24-08'), 'repo/z-packages.yaml': pkg('seven-zip-24-08') });
    const onlyFirst = await cli(['validate', 'a-packages.yaml'], {}, join(dir, 'repo'));
    expect(onlyFirst.stderr).toBe(
      'a-packages.yaml:4:9: Package "seven-zip-24-08": another Package has the same name (first at z-packages.yaml:4:9); names must be unique per kind\n1 error: the manifests are not valid.\n',
    );
    // From the parent folder, the file and the file named in the message share one base (row 37).
    const whole = await cli(['validate', 'repo'], {}, dir);
    expect(whole.stderr).toBe(
      'repo/z-packages.yaml:4:9: Package "seven-zip-24-08": another Package has the same name (first at repo/a-packages.yaml:4:9); names must be unique per kind\n1 error: the manifests are not valid.\n',
    );
  });

  it('points an unclosed quote at the quote, lists YAML errors first, and holds back references to names the broken file defines', async () => {
    const dir = await repo({
      'a-deployments.yaml': `${dep('pwsh', 'pwsh', 'pwsh-7-4-6')}---\n${dep('other', 'pwsh', 'nope')}`,
      'b-flows.yaml': `${flow('pwsh')}  flgs: []\n`,
      'packages/pwsh-7-4-6.yaml': pkg('pwsh-7-4-6', '"7.4.6'),
    });
    const r = await cli(['validate', '.'], {}, dir);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toEqual([
      // At the opening quote (8:14), not past the last line, and first though its file sorts last.
      'packages/pwsh-7-4-6.yaml:8:14: YAML: Missing closing "quote for the string that starts here',
      'a-deployments.yaml:16:12: Deployment "other": spec.package "nope" does not name a Package in this repository (there are no Packages)',
      'b-flows.yaml:7:3: Flow "pwsh": unknown field spec.flgs (did you mean "flags"?)',
      '3 errors: the manifests are not valid.',
      '',
    ]);
    // The same from a single file: the broken file is not given, its names are still held back.
    const one = await cli(['validate', 'a-deployments.yaml'], {}, dir);
    expect(one.stderr).toBe(
      'a-deployments.yaml:16:12: Deployment "other": spec.package "nope" does not name a Package in this repository (there are no Packages)\n1 error: the manifests are not valid.\n',
    );
  });

  it('holds back nothing for a broken file that is not a packsync manifest (a Helm template)', async () => {
    const dir = await repo({
      'chart/templates/deployment.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  labels: {{- include "x" . | nindent 4 }}\n',
      'manifests/d.yaml': dep('d', 'f', 'p'),
    });
    const r = await cli(['validate', 'manifests/d.yaml'], {}, dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^manifests\/d\.yaml:6:9: Deployment "d": spec\.flow "f" does not name a Flow/);
    expect(r.stderr).toMatch(/\nmanifests\/d\.yaml:7:12: Deployment "d": spec\.package "p" does not name a Package/);
    expect(r.stderr).not.toMatch(/chart\//);
  });

  it('validate-two-roots: paths of two environment roots of one git repository are each checked against their own root', async () => {
    const env = (name: string): Record<string, string> => ({
      [`${name}/.packsyncignore`]: '',
      [`${name}/flow.yaml`]: flow('seven-zip'),
      [`${name}/pkg.yaml`]: pkg('seven-zip'),
      [`${name}/dep.yaml`]: dep('seven-zip', 'seven-zip', 'seven-zip'),
    });
    const mono = await repo({ ...env('prod'), ...env('staging') }, null);
    await git(mono, 'init', '-q');
    const one = await cli(['validate', 'prod/flow.yaml'], {}, mono);
    expect(one).toEqual({
      code: 0,
      stdout: '1 file, 1 document valid (0 packages, 1 flow, 0 deployments, 0 tenant uploads)\n',
      stderr: '',
    });
    const both = await cli(['validate', 'prod/flow.yaml', 'staging/dep.yaml', './prod/flow.yaml'], {}, mono);
    expect(both).toEqual({
      code: 0,
      stdout: '2 files, 2 documents valid (0 packages, 1 flow, 1 deployment, 0 tenant uploads)\n',
      stderr: '',
    });
    // Each root's problems are reported, together, with one exit code; a file named twice is said once.
    await writeFile(join(mono, 'staging', 'dep.yaml'), dep('seven-zip', 'seven-zp', 'seven-zip'));
    await writeFile(join(mono, 'prod', 'flow.yaml'), `${flow('seven-zip')}  flgs: []\n`);
    const bad = await cli(['validate', 'staging/dep.yaml', 'prod/flow.yaml', 'prod/flow.yaml', 'prod/pkg.yaml'], {}, mono);
    expect(bad.code).toBe(1);
    expect(bad.stderr.split('\n')).toEqual([
      'prod/flow.yaml:7:3: Flow "seven-zip": unknown field spec.flgs (did you mean "flags"?)',
      'staging/dep.yaml:6:9: Deployment "seven-zip": spec.flow "seven-zp" does not name a Flow in this repository (did you mean "seven-zip"?)',
      '2 errors: the manifests are not valid.',
      '',
    ]);
  });

  it('validate-two-roots: files of two unrelated git repositories read neither the other nor their shared parent', async () => {
    const parent = await repo({ 'stray.yaml': 'kind: [' }, null);
    const one = join(parent, 'one');
    const two = join(parent, 'two');
    for (const [dir, f] of [
      [one, 'a'],
      [two, 'b'],
    ] as const) {
      await mkdir(dir);
      await git(dir, 'init', '-q');
      await writeFile(join(dir, 'flow.yaml'), flow('seven-zip'));
      await writeFile(join(dir, 'pkg.yaml'), pkg('seven-zip'));
      await writeFile(join(dir, `${f}.yaml`), dep(f, 'seven-zip', 'seven-zip'));
    }
    const r = await cli(['validate', 'one/a.yaml', 'two/b.yaml'], {}, parent);
    expect(r).toEqual({
      code: 0,
      stdout: '2 files, 2 documents valid (0 packages, 0 flows, 2 deployments, 0 tenant uploads)\n',
      stderr: '',
    });
    const loaded = await loadRepository([join(two, 'b.yaml'), join(one, 'a.yaml')]);
    expect(loaded.root).toBe(two);
    expect(loaded.files).toEqual(['b.yaml', 'a.yaml']);
  });

  it('reports a missing path and still validates the others', async () => {
    const dir = await repo({ 'f.yaml': flow('f') });
    const r = await cli(['validate', 'f.yaml', 'gone.yaml'], {}, dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('gone.yaml:1:1: gone.yaml does not exist\n1 error: the manifests are not valid.\n');
  });
});
