/**
 * Aliases cannot blow a manifest up (issue 20, security review 3 finding 1): a document whose aliases
 * expand it past what a manifest file may hold is a validation error at the first alias, with nothing
 * planned (regression: 900 aliases of a 960 KB scalar validated, then took the agent down with an out of
 * memory abort while the spec was hashed). Aliases that stay small still work.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYamlFile } from '../../src/manifests/yaml-source.js';
import { cli } from '../support/cli.js';
import { simEnv } from '../support/sim.js';
import { tempDir } from '../support/temp-dir.js';

function packageWithAliases(scalarBytes: number, aliases: number): string {
  return [
    'apiVersion: packsync.dev/v1',
    'kind: Package',
    'metadata: { name: blown }',
    'spec:',
    '  custom:',
    '    name: Blown',
    '    publisher: P',
    '    version: "1.0"',
    '    sourceType: script',
    '    content: content/blown',
    '    detectionRules:',
    `      - &r { type: script, scriptContent: "${'A'.repeat(scalarBytes)}" }`,
    ...Array.from({ length: aliases }, () => '      - *r'),
    '',
  ].join('\n');
}

describe('alias expansion', () => {
  it('refuses a document that aliases expand past 1 MiB, at the first alias', async () => {
    const dir = await tempDir('packsync-alias-');
    await writeFile(join(dir, 'blown.yaml'), packageWithAliases(300_000, 8));
    const r = await cli(['validate', dir], {});
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(
      /blown\.yaml:13:9: aliases expand this document to about \d+ bytes, more than the 1048576 a manifest may have/,
    );
  });

  it('accepts aliases that stay small (the limit is on what they expand to, not on using them)', async () => {
    const dir = await tempDir('packsync-alias-');
    await writeFile(join(dir, 'small.yaml'), packageWithAliases(100, 8));
    const r = await cli(['validate', dir], {});
    expect(r.stdout + r.stderr).not.toMatch(/aliases expand/);
  });

  // An alias inside the value its own anchor names made toJS build a value that contains itself;
  // the first walk of it overflowed the stack, so validate printed only "Maximum call stack size
  // exceeded", plan answered INTERNAL and the other files' problems were never reported.
  const flowSelf = 'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: {name: anch}\nspec: &a {app: 7-Zip, x: *a}\n';
  const blockSelf = 'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: anch2\nspec: &b\n  app: 7-Zip\n  x:\n    - *b\n';
  const other = 'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: {name: other}\nspec: {app: 7-Zip, bogus: 1}\n';

  it('self-alias-stack-overflow: an alias of its enclosing anchor is a problem at the alias, on both parser paths', () => {
    for (const plain of [true, false]) {
      const flow = parseYamlFile('flow.yaml', flowSelf, { plain });
      expect(flow.problems.map((p) => [p.rule, p.line, p.column])).toEqual([['yaml.alias-expansion', 4, 26]]);
      expect(flow.documents.every((d) => !d.ok)).toBe(true);
      const block = parseYamlFile('block.yaml', blockSelf, { plain });
      expect(block.problems.map((p) => [p.rule, p.line, p.column])).toEqual([['yaml.alias-expansion', 8, 7]]);
    }
  });

  it("self-alias-stack-overflow: validate reports it with the other files' problems", async () => {
    const dir = await tempDir('packsync-alias-');
    await writeFile(join(dir, 'alias.yaml'), flowSelf);
    await writeFile(join(dir, 'alias2.yaml'), blockSelf);
    await writeFile(join(dir, 'other.yaml'), other);
    const r = await cli(['validate', dir, '-o', 'json'], {});
    expect(r.code).toBe(1);
    const { problems } = JSON.parse(r.stdout) as { problems: { file: string; rule: string; line: number; column: number }[] };
    expect(problems.map((p) => [p.file.replace(/^.*[\\/]/, ''), p.rule, p.line, p.column])).toEqual([
      ['alias.yaml', 'yaml.alias-expansion', 4, 26],
      ['alias2.yaml', 'yaml.alias-expansion', 8, 7],
      ['other.yaml', 'schema.additional', 4, 20],
    ]);
  });

  it('self-alias-stack-overflow: plan refuses the manifests (not INTERNAL), cold and with the parse cache warm', async () => {
    const s = await simEnv();
    try {
      const dir = await tempDir('packsync-alias-');
      await writeFile(join(dir, 'alias.yaml'), flowSelf);
      await writeFile(join(dir, 'other.yaml'), other);
      for (const pass of ['cold', 'warm']) {
        const r = await cli(['plan', dir, '-o', 'json'], s.env);
        expect(r.code, pass).toBe(1);
        expect(r.stdout + r.stderr, pass).not.toMatch(/INTERNAL|call stack/);
        expect(r.stdout + r.stderr, pass).toMatch(/alias\.yaml:4:26/);
      }
      expect(await s.sim.journal(true)).toEqual([]);
    } finally {
      await s.sim.close();
    }
  });
});
