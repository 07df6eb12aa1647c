/**
 * `versionRanges` (src/update/rewrite.ts) finds a Package's `spec.catalog.version` scalar from the
 * yaml package's CST alone when the file is in a usual shape, else from the composed documents:
 * wherever the CST way answers, it must give exactly the composed way's ranges. Checked on
 * generated files of many shapes (fast-check), and the edit itself on a few by hand.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadManifests } from '../../src/manifests/load.js';
import { placedVersionRanges, tokenVersionRanges, versionRanges, withVersions } from '../../src/update/rewrite.js';
import type { VersionEdit } from '../../src/update/rewrite.js';
import { tempDir } from '../support/temp-dir.js';

/** One Package document in one of the shapes people write. */
interface Shape {
  name: string;
  version: string;
  quote: 'plain' | 'single' | 'double';
  metadataFlow: boolean;
  catalogFlow: boolean;
  comment: boolean;
  /** Something the CST way must decline or get right: a tag, an anchor, a duplicate key, a key quoted. */
  odd: 'none' | 'tag' | 'anchor' | 'quoted-key' | 'duplicate-name' | 'other-kind';
}

function versionText(s: Shape): string {
  return s.quote === 'single' ? `'${s.version}'` : s.quote === 'double' ? `"${s.version}"` : s.version;
}

function documentText(s: Shape, eol: string, apiVersion = 'packsync.io/v1'): string {
  const v = `${s.odd === 'tag' ? '!!str ' : s.odd === 'anchor' ? '&v ' : ''}${versionText(s)}`;
  const key = s.odd === 'quoted-key' ? '"version"' : 'version';
  const note = s.comment ? ' # pinned by ring' : '';
  const kind = s.odd === 'other-kind' ? 'Flow' : 'Package';
  const lines = [
    ...(s.comment ? ['# a package'] : []),
    `apiVersion: ${apiVersion}`,
    `kind: ${kind}`,
    ...(s.metadataFlow ? [`metadata: { name: ${s.name} }`] : ['metadata:', `  name: ${s.name}`]),
    ...(s.odd === 'duplicate-name' ? ['  name: other'] : []),
    'spec:',
    ...(s.catalogFlow
      ? [`  catalog: { app: 7-Zip, ${key}: ${v}, update: { track: latest } }${note}`]
      : ['  catalog:', '    app: 7-Zip', `    ${key}: ${v}${note}`, '    update: { track: latest, group: weekly }']),
  ];
  return lines.join(eol) + eol;
}

const shapeOf = (odd: fc.Arbitrary<Shape['odd']>): fc.Arbitrary<Shape> =>
  fc.record({
    name: fc.constantFrom('seven-zip', 'chrome', 'ring-1', 'pkg-0'),
    version: fc.constantFrom('24.09', '24.10', '1.2.3', '131.0.6778.86', '7.4.x', '1e3', 'v2 beta', "it's", '2#1', '3,1'),
    quote: fc.constantFrom('plain', 'single', 'double'),
    metadataFlow: fc.boolean(),
    catalogFlow: fc.boolean(),
    comment: fc.boolean(),
    odd,
  });

describe('placedVersionRanges', () => {
  it("finds, from where the load located each version, exactly the composed way's ranges, or declines", async () => {
    const dir = await tempDir('packsync-placed-');
    let answered = 0;
    let located = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(shapeOf(fc.constantFrom('none', 'none', 'none', 'tag', 'anchor', 'quoted-key')), {
          minLength: 1,
          maxLength: 4,
          selector: (s) => s.name,
        }),
        fc.boolean(),
        async (shapes, crlf) => {
          const eol = crlf ? '\r\n' : '\n';
          const text = shapes.map((s) => documentText(s, eol, 'packsync.dev/v1')).join(`---${eol}`);
          const file = join(dir, 'packages.yaml');
          await writeFile(file, text);
          // The real load (its fast path or the yaml package, whichever takes the file) places each version.
          const loaded = await loadManifests(file);
          for (const m of loaded.desired?.packages ?? []) {
            const at = m.positions?.['spec.catalog.version'];
            const from = m.spec.catalog?.version;
            if (!at || typeof from !== 'string') continue;
            const usual = shapes.find((x) => x.name === m.metadata.name)?.odd === 'none';
            if (usual) located++;
            const placed = placedVersionRanges(text, [{ line: at.line, column: at.column, from, version: '25.01' }]);
            if (placed === undefined) continue;
            if (usual) answered++;
            expect(placed, text).toEqual(versionRanges(text, [{ packageName: m.metadata.name, version: '25.01' }], { tokens: false }));
          }
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 150), seed: Number(process.env.SEED ?? 20261127) },
    );
    // Not a test that passes by declining everything: most versions in a usual shape are answered.
    expect(answered).toBeGreaterThan(located / 2);
  });

  it('declines a place that no longer reads what the load read there (the file changed since)', () => {
    const text = 'kind: Package\nmetadata:\n  name: a\nspec:\n  catalog:\n    app: 7-Zip\n    version: 24.09 # pinned\n';
    expect(placedVersionRanges(text, [{ line: 7, column: 14, from: '24.09', version: '25' }])).toEqual([
      { start: text.indexOf('24.09'), end: text.indexOf('24.09') + 5, version: '25' },
    ]);
    expect(placedVersionRanges(text, [{ line: 7, column: 14, from: '24.08', version: '25' }])).toBeUndefined();
    expect(placedVersionRanges(text, [{ line: 6, column: 10, from: '7-Zip', version: '25' }])).toBeUndefined();
    expect(placedVersionRanges(text, [{ line: 9, column: 1, from: '24.09', version: '25' }])).toBeUndefined();
    expect(placedVersionRanges(text.replace('24.09 #', '24.09#'), [{ line: 7, column: 14, from: '24.09', version: '25' }])).toBeUndefined();
  });
});

describe('versionRanges', () => {
  it('finds the same ranges from the CST as from the composed documents, whenever the CST way answers', () => {
    const shape: fc.Arbitrary<Shape> = fc.record({
      name: fc.constantFrom('seven-zip', 'chrome', 'ring-1', 'pkg-0'),
      version: fc.constantFrom('24.09', '24.10', '1.2.3', '131.0.6778.86', '7.4.x', '1e3', 'v2 beta'),
      quote: fc.constantFrom('plain', 'single', 'double'),
      metadataFlow: fc.boolean(),
      catalogFlow: fc.boolean(),
      comment: fc.boolean(),
      odd: fc.oneof(
        { arbitrary: fc.constant('none' as const), weight: 8 },
        {
          arbitrary: fc.constantFrom('tag', 'anchor', 'quoted-key', 'duplicate-name', 'other-kind'),
          weight: 2,
        },
      ),
    });
    let answered = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        fc.uniqueArray(shape, { minLength: 1, maxLength: 4, selector: (s) => s.name }),
        fc.boolean(),
        fc.nat(),
        (shapes, crlf, pick) => {
          const eol = crlf ? '\r\n' : '\n';
          const text = shapes.map((s) => documentText(s, eol)).join(`---${eol}`);
          const target = shapes[pick % shapes.length]!;
          const edits: VersionEdit[] = [{ packageName: target.name, version: '25.01' }];
          let composed: ReturnType<typeof versionRanges> | undefined;
          try {
            composed = versionRanges(text, edits, { tokens: false });
          } catch {
            composed = undefined;
          }
          const tokens = tokenVersionRanges(text, edits);
          runs++;
          if (tokens === undefined) return;
          answered++;
          // The CST way never answers where the composed way finds nothing to edit.
          expect(composed, text).toEqual(tokens);
          const edited = withVersions(text, tokens);
          const docs = parseAllDocuments(edited).map(
            (d) => d.toJS() as { metadata?: { name?: string }; spec?: { catalog?: { version?: unknown } } },
          );
          const doc = docs.find((d) => d.metadata?.name === target.name);
          expect(doc?.spec?.catalog?.version, edited).toBe('25.01');
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 600), seed: Number(process.env.SEED ?? 20261127) },
    );
    // Not a test that passes by declining everything: most files are in a usual shape.
    expect(answered).toBeGreaterThan(runs / 2);
  });

  it('edits the document the composed way edits when a foreign document reads alike (regression: a plain `1.10`, `null` or an anchored name matched by its text)', () => {
    const real = (name: string): string =>
      `kind: Package\nmetadata:\n  name: ${name}\nspec:\n  catalog:\n    app: 7-Zip\n    version: 24.09\n`;
    const foreign = (name: string): string =>
      `apiVersion: example.com/v1\nkind: Package\nmetadata:\n  name: ${name}\nspec:\n  catalog:\n    version: 1.0\n`;
    for (const [first, second, target] of [
      [foreign('1.10'), real('"1.10"'), '1.10'],
      [foreign('null'), real('"null"'), 'null'],
      [foreign('&n foo'), real('foo'), 'foo'],
      [real('"1.10"'), foreign('1.10'), '1.10'],
    ] as const) {
      const text = `${first}---\n${second}`;
      const edits: VersionEdit[] = [{ packageName: target, version: '25.01' }];
      const composed = versionRanges(text, edits, { tokens: false });
      expect(versionRanges(text, edits), text).toEqual(composed);
      const tokens = tokenVersionRanges(text, edits);
      if (tokens) expect(tokens, text).toEqual(composed);
    }
  });

  it('never edits another group’s document (regression: a foreign `kind: Package` of the same name, written first, was edited)', () => {
    const real =
      'apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: foo\nspec:\n  catalog:\n    app: 7-Zip\n    version: 24.09\n';
    const foreign = 'apiVersion: example.com/v1\nkind: Package\nmetadata:\n  name: foo\nspec:\n  catalog:\n    version: 1.0\n';
    const text = `${foreign}---\n${real}`;
    const edits: VersionEdit[] = [{ packageName: 'foo', version: '25.01' }];
    for (const ranges of [versionRanges(text, edits), versionRanges(text, edits, { tokens: false }), tokenVersionRanges(text, edits)!]) {
      expect(ranges).toHaveLength(1);
      expect(text.slice(ranges[0]!.start, ranges[0]!.end)).toBe('24.09');
    }
  });

  it('leaves a multi-line scalar, an alias and a Baseline entry to the composed documents', () => {
    const multi = 'kind: Package\nmetadata:\n  name: a\nspec:\n  catalog:\n    version: "24.09\n      beta"\n';
    expect(tokenVersionRanges(multi, [{ packageName: 'a', version: '25' }])).toBeUndefined();
    const alias = 'kind: Package\nmetadata:\n  name: a\nx: &v 1\nspec:\n  catalog:\n    version: *v\n';
    expect(tokenVersionRanges(alias, [{ packageName: 'a', version: '25' }])).toBeUndefined();
    const baseline = 'kind: Baseline\nspec:\n  apps:\n    - app: X\n      version: 1\n';
    expect(tokenVersionRanges(baseline, [{ index: 0, path: ['spec', 'apps', 0, 'version'], version: '2' }])).toBeUndefined();
  });

  it('replaces only the scalar: comments, quoting, CRLF and every other byte kept', () => {
    const text =
      "# ring 1\r\nkind: Package\r\nmetadata: { name: a }\r\nspec:\r\n  catalog:\r\n    app: 7-Zip\r\n    version: '24.09' # pinned\r\n";
    const ranges = versionRanges(text, [{ packageName: 'a', version: '24.10' }]);
    expect(tokenVersionRanges(text, [{ packageName: 'a', version: '24.10' }])).toEqual(ranges);
    expect(withVersions(text, ranges)).toBe(text.replace("'24.09'", "'24.10'"));
  });

  it('block-scalar-version-kept: a version in a block scalar is replaced inside it, the next key kept on its own line (regression: `version: 6.3.6    scope: machine`)', () => {
    const doc = (version: string, nl = '\n'): string =>
      ['kind: Package', 'metadata: { name: w }', 'spec:', '  catalog:', '    app: WinSCP', version, '    scope: machine', ''].join(nl);
    const cases = [
      [doc('    version: >-\n      6.3.5'), doc('    version: >-\n      6.3.6')],
      [doc('    version: |\n      6.3.5\n'), doc('    version: |\n      6.3.6\n')],
      [doc('    version: >-  # pinned\r\n      6.3.5', '\r\n'), doc('    version: >-  # pinned\r\n      6.3.6', '\r\n')],
      // A number-like version needs no quotes inside a block: quotes there would be part of it.
      [doc('    version: >-\n      24.08'), doc('    version: >-\n      24.10')],
    ];
    for (const [before, after] of cases) {
      const to = after!.includes('24.10') ? '24.10' : '6.3.6';
      const edited = withVersions(before!, versionRanges(before!, [{ packageName: 'w', version: to }]));
      expect(edited).toBe(after);
      const parsed = parseAllDocuments(edited)[0]!.toJS() as { spec: { catalog: { version: string; scope: string } } };
      expect(parsed.spec.catalog).toMatchObject({ scope: 'machine' });
      expect(parsed.spec.catalog.version.trim()).toBe(to);
    }
  });
});
