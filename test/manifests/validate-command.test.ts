import { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { registerValidateCommand } from '../../src/cli/validate-command.js';
import { tempDir } from '../support/temp-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function validate(args: string[], cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  let code = 0;
  const io: CliIo = {
    stdout: (s) => (stdout += `${s}\n`),
    stderr: (s) => (stderr += `${s}\n`),
    setExitCode: (c) => (code = c),
    isTTY: false,
    env: {},
    cwd,
  };
  const program = new Command().exitOverride();
  registerValidateCommand(program, io);
  await program.parseAsync(['node', 'packsync', 'validate', ...args]);
  return { code, stdout, stderr };
}

describe('packsync validate', () => {
  it('summarises a valid repository and exits 0', async () => {
    const r = await validate(['examples']);
    expect(r).toEqual({
      code: 0,
      stdout: '11 files, 11 documents valid (6 packages, 8 flows, 8 deployments, 1 tenant upload, 1 baseline)\n',
      stderr: '',
    });
  });

  it('resolves the default path against the working directory', async () => {
    const r = await validate([], join(ROOT, 'examples'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^11 files, 11 documents valid/);
  });

  it('prints FILE:LINE:COL: message for every problem and exits 1', async () => {
    const dir = await tempDir('packsync-validate-');
    await writeFile(
      join(dir, 'd.yaml'),
      'apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  flow: f\n  package: p\n  state: runing\n',
    );
    const r = await validate(['.'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toEqual([
      'd.yaml:6:9: Deployment "d": spec.flow "f" does not name a Flow in this repository (there are no Flows)',
      'd.yaml:7:12: Deployment "d": spec.package "p" does not name a Package in this repository (there are no Packages)',
      'd.yaml:8:10: Deployment "d": spec.state must be one of pending, running, stopped (got "runing"; did you mean "running"?)',
      '3 errors: the manifests are not valid.',
      '',
    ]);
  });

  it('writes {valid, problems, files, documents} with --output json', async () => {
    const dir = await tempDir('packsync-validate-');
    await writeFile(join(dir, 'x.yaml'), 'kind: Flow\n');
    const r = await validate([dir, '--output', 'json'], ROOT);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { valid: boolean; problems: { file: string; rule: string }[]; files: string[]; documents: number };
    expect(out.valid).toBe(false);
    expect(out.documents).toBe(1);
    expect(out.files).toEqual([join(dir, 'x.yaml')]);
    expect(out.problems.map((p) => [p.file, p.rule])).toEqual([
      [join(dir, 'x.yaml'), 'schema.required'],
      [join(dir, 'x.yaml'), 'schema.required'],
      [join(dir, 'x.yaml'), 'schema.required'],
    ]);
    const ok = JSON.parse((await validate(['examples', '-o', 'json'])).stdout) as { valid: boolean; problems: unknown[]; files: string[] };
    expect(ok.valid).toBe(true);
    expect(ok.problems).toEqual([]);
    expect(ok.files).toContain('examples/deployments/pwsh.yaml');
  });

  it('writes GitHub Actions annotations with --output github', async () => {
    const dir = await tempDir('packsync-validate-');
    await writeFile(
      join(dir, 'f.yaml'),
      'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: f\nspec:\n  app: 7-Zip\n  flgs: []\n',
    );
    const r = await validate(['.', '--output', 'github'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      '::error file=f.yaml,line=7,col=3,title=packsync schema.additional::Flow "f": unknown field spec.flgs (did you mean "flags"?)\n',
    );
    const ok = await validate(['examples', '--output', 'github']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^11 files, 11 documents valid/);
  });

  it('prints warnings but still exits 0', async () => {
    const dir = await tempDir('packsync-validate-');
    await writeFile(join(dir, 'README.md'), 'no manifests here\n');
    const r = await validate([dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: no \*\.yaml or \*\.yml files under/);
    expect(r.stdout).toBe('0 files, 0 documents valid (0 packages, 0 flows, 0 deployments, 0 tenant uploads)\n');
  });

  it('reports a missing path', async () => {
    const r = await validate(['no-such-dir']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^no-such-dir:1:1: .*no-such-dir does not exist/);
  });
});
