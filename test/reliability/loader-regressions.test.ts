/**
 * Regression tests for the manifest loader defects the bad-input corpus found (src/manifests):
 * lenient decoding of non-UTF-8 files, an out-of-memory crash on deeply nested flow collections,
 * stack-dependent positions for deep block nesting, and integers past 2^53 read as another value.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeManifest, invalidUtf8Offset } from '../../src/manifests/encoding.js';
import { loadManifests } from '../../src/manifests/load.js';
import type { Problem } from '../../src/manifests/model.js';
import { MAX_DEPTH } from '../../src/manifests/nesting.js';
import { tempDir } from '../support/repo.js';

const H = 'apiVersion: packsync.dev/v1\n';

async function repoWith(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await tempDir('packsync-loader-');
  for (const [rel, data] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), data);
  }
  return dir;
}

const errors = (ps: readonly Problem[]): string[] =>
  ps.filter((p) => p.severity === 'error').map((p) => `${p.file}:${p.line}:${p.column} ${p.rule}`);

const custom = (publisher: string): string =>
  `${H}kind: Package\nmetadata:\n  name: tool\nspec:\n  custom:\n    name: Tool\n    publisher: ${publisher}\n    version: 1.0.0\n    sourceType: msi\n    content: content/tool\n`;

describe('manifest loader regressions', () => {
  it('refuses a Latin-1 file at its first non-UTF-8 byte instead of uploading a name mangled to U+FFFD', async () => {
    const repo = await repoWith({ 'tool.yaml': Buffer.from(custom('Caf\xe9 Ltd'), 'latin1'), 'content/tool/setup.msi': 'msi' });
    const r = await loadManifests(repo);
    expect(r.desired).toBeNull();
    expect(errors(r.problems)).toEqual(['tool.yaml:8:19 file.encoding']);
    // The same file in UTF-8 is valid: only the encoding was wrong.
    await writeFile(join(repo, 'tool.yaml'), custom('Café Ltd'));
    const ok = await loadManifests(repo);
    expect(errors(ok.problems)).toEqual([]);
    expect(ok.desired?.packages[0]?.spec.custom?.publisher).toBe('Café Ltd');
  });

  it('names UTF-16 and binary files as such instead of quoting their bytes in a schema message', async () => {
    const flow = `${H}kind: Flow\nmetadata:\n  name: f\nspec:\n  app: 7-Zip\n`;
    const repo = await repoWith({
      'a-utf16.yaml': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(flow, 'utf16le')]),
      'b-binary.yaml': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]),
      'c-nul.yaml': `${H}kind: Flow\nmetadata:\n  name: f\x00\n`,
    });
    const r = await loadManifests(repo);
    expect(r.problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.rule} ${p.message.split(':')[0]!}`)).toEqual([
      'a-utf16.yaml:1:1 file.encoding the file is UTF-16 or UTF-32 encoded (byte order mark); manifests must be UTF-8',
      'b-binary.yaml:1:1 file.encoding the file is not valid UTF-8 (byte 0x89); save it as UTF-8',
      'c-nul.yaml:4:10 file.encoding the file contains a NUL byte',
    ]);
  });

  it('finds the first malformed UTF-8 sequence, whatever its kind', () => {
    const at = (...bytes: number[]): number => invalidUtf8Offset(Uint8Array.from([0x61, ...bytes]));
    expect(at(0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80)).toBe(-1); // é and an emoji
    expect(at(0xc0, 0xaf)).toBe(1); // overlong "/"
    expect(at(0xe0, 0x80, 0xaf)).toBe(1); // overlong, three bytes
    expect(at(0xed, 0xa0, 0x80)).toBe(1); // a UTF-16 surrogate
    expect(at(0xf4, 0x90, 0x80, 0x80)).toBe(1); // past U+10FFFF
    expect(at(0xe2, 0x82)).toBe(1); // truncated at the end
    expect(at(0x80)).toBe(1); // a lone continuation byte
    const d = decodeManifest(Buffer.from([0xf0, 0x9f, 0x98, 0x80, 0x20, 0xff]));
    expect(d).toMatchObject({ ok: false, line: 1, column: 3 }); // the emoji is one column
  });

  it('refuses two million brackets quickly instead of running the process out of memory', async () => {
    const repo = await repoWith({
      'deep.yaml': `${H}kind: Flow\nmetadata:\n  name: f\nspec:\n  app: ${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}\n`,
    });
    const heap = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    // Past the 1 MiB default on purpose: the depth check must hold where an operator raised the limit.
    const r = await loadManifests(repo, { maxFileBytes: 16 * 1024 * 1024 });
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(200 * 1024 * 1024);
    expect(errors(r.problems)).toEqual([`deep.yaml:6:${8 + MAX_DEPTH} yaml.too-deep`]);
  });

  it('reads flow collections exactly MAX_DEPTH deep, and refuses one level more', async () => {
    const at = (n: number): string => `x: ${'['.repeat(n)}${']'.repeat(n)}\n`;
    const ok = await loadManifests(await repoWith({ 'f.yaml': at(MAX_DEPTH - 1) }));
    expect(ok.problems.map((p) => p.rule)).not.toContain('yaml.too-deep');
    const deep = await loadManifests(await repoWith({ 'f.yaml': at(MAX_DEPTH) }));
    expect(errors(deep.problems)).toEqual([`f.yaml:1:${4 + MAX_DEPTH - 1} yaml.too-deep`]);
  });

  it('refuses deep block nesting at one position, however deep the caller stack already is', async () => {
    const repo = await repoWith({
      'block.yaml': `${Array.from({ length: 1500 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n`,
      'dashes.yaml': `${'- '.repeat(50_000)}1\n`,
    });
    const big = { maxFileBytes: 16 * 1024 * 1024 };
    const shallow = errors((await loadManifests(repo, big)).problems);
    // Before the fix the composer overflowed the stack, and where it did depended on the caller.
    const deepCall = async (n: number): Promise<Problem[]> => (n === 0 ? (await loadManifests(repo, big)).problems : deepCall(n - 1));
    const deep = errors(await deepCall(2000));
    expect(shallow).toEqual(['block.yaml:65:65 yaml.too-deep', 'dashes.yaml:1:129 yaml.too-deep']);
    expect(deep).toEqual(shallow);
  });

  it('refuses an integer past 2^53 instead of validating the different number it reads as', async () => {
    const repo = await repoWith({
      'all.yaml': [
        `${H}kind: Package\nmetadata:\n  name: p\nspec:\n  catalog:\n    app: 7-Zip\n    version: "24.08"\n`,
        `${H}kind: Flow\nmetadata:\n  name: f\nspec:\n  app: 7-Zip\n`,
        `${H}kind: Deployment\nmetadata:\n  name: d\nspec:\n  flow: f\n  package: p\n  contentRevision: 9007199254740993\n  wave: 9007199254740991\n`,
      ].join('---\n'),
    });
    const r = await loadManifests(repo);
    expect(r.desired).toBeNull();
    const e = r.problems.filter((p) => p.severity === 'error');
    expect(e.map((p) => `${p.line}:${p.column} ${p.rule} ${p.pointer}`)).toEqual(['24:20 schema.range /spec/contentRevision']);
    expect(e[0]!.message).toContain('9007199254740993 is too large');
  });
});
