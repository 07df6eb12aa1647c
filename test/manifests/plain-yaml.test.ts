/**
 * The plain-style fast path (src/manifests/plain-yaml.ts) against the yaml package: wherever the fast
 * path reads a file, it must give exactly what the full path gives (values, document indexes and
 * starts, the positions of every key path) and the full path must find no problem in it. Checked on
 * every YAML file of examples/ and test/fixtures/, on a generated fleet, and on generated and mutated
 * documents full of the scalars the two parsers could read differently.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePlainYaml } from '../../src/manifests/plain-yaml.js';
import { locatedKey } from '../../src/manifests/document-handle.js';
import { prelocated } from '../../src/manifests/positions.js';
import { parseYamlFile } from '../../src/manifests/yaml-source.js';
import type { PrelocatedPath, Segment } from '../../src/manifests/yaml-types.js';
import { writeFleet } from '../support/fleet.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every chain of keys (no list index) to a value that is written (not null), as a position test wants them all. */
function keyPaths(value: unknown, prefix: string[] = []): Segment[][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const out: Segment[][] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v === null) continue;
    out.push([...prefix, k], ...keyPaths(v, [...prefix, k]));
  }
  return out;
}

/** `keyPaths`, keyed as the parsers keep them. */
function allKeyPaths(value: unknown): PrelocatedPath[] {
  return keyPaths(value).map((segments) => ({ segments, key: locatedKey(segments, 'value') }));
}

/** The fast path's reading of `text` when it takes it, after checking it against the full path; false when it declines. */
function compare(text: string, prelocate: (v: unknown) => readonly PrelocatedPath[] = allKeyPaths): boolean {
  const fast = parsePlainYaml('f.yaml', text, prelocate);
  if (!fast) return false;
  const full = parseYamlFile('f.yaml', text, { prelocate, plain: false });
  expect(full.problems, text).toEqual([]);
  expect(full.broken, text).toEqual([]);
  const shape = (f: typeof full): unknown =>
    f.documents.map((d) => ({
      index: d.index,
      value: d.value,
      start: d.start,
      ok: d.ok,
      located: Object.fromEntries(d.located as ReadonlyMap<string, unknown>),
    }));
  expect(shape(fast), text).toEqual(shape(full));
  return true;
}

async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await yamlFiles(p)));
    else if (/\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

describe('the plain-style fast path', () => {
  it('reads the files of examples/ and test/fixtures/ as the yaml package does, or leaves them to it', async () => {
    const files = [...(await yamlFiles(join(ROOT, 'examples'))), ...(await yamlFiles(join(ROOT, 'test', 'fixtures')))];
    let taken = 0;
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      if (compare(text)) taken++;
      compare(text, prelocated);
    }
    // Most of them are in the plain style (the invalid fixtures are not, on purpose).
    expect(taken).toBeGreaterThan(files.length / 3);
  });

  it('reads every file of a generated fleet (the cold load it exists for)', async () => {
    const fleet = await writeFleet({ flows: 40, deploymentsPerFlow: 4, packages: 80 });
    const files = [...(await yamlFiles(join(fleet.dir, 'flows'))), ...(await yamlFiles(join(fleet.dir, 'packages')))];
    for (const f of files) expect(compare(await readFile(f, 'utf8'), prelocated), f).toBe(true);
  });

  it('declines what it does not read alike: nested flow collections, block scalars, anchors, tags, tabs, CRs, empty documents', () => {
    for (const text of [
      'a: {b: {c: 1}}\n',
      'a: { b: [1] }\n',
      'a: { b: 1, }\n',
      'a: { b }\n',
      'a: { b: }\n',
      'a: { b: 1 } x\n',
      'a: { b: 1 }#x\n',
      'a: { b: c: d }\n',
      'a: { b: 1, b: 2 }\n',
      'a: { b: 1\n',
      '- { b: 1 }\n',
      // Regression (review): 64 levels of keys and a flow mapping are 65, over the full parser's limit.
      `${Array.from({ length: 63 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')}\n${' '.repeat(63)}a: { b: 1 }\n`,
      'a: [1, 2]\n',
      'a: |\n  x\n',
      'a: &x 1\nb: *x\n',
      'a: !!str 1\n',
      'a:\tb\n',
      'a: 1\r\nb: 2\r\n',
      'a: 1\n---\n',
      'a: 1\n---\n# only a comment\n---\nb: 2\n',
      'a: hello\n  world\n',
      '"a": 1\n',
      'a: 1\na: 2\n',
      '- a\n- b\n',
      'true: 1\n',
      '__proto__: 1\n',
      'a: "\\ud800"\n',
      'a: b: c\n',
    ])
      expect(parsePlainYaml('f.yaml', text), JSON.stringify(text)).toBeUndefined();
  });

  it('reads a one-line flow mapping (`update: { track: latest }`) as the yaml package does, for every pair of awkward scalars', () => {
    const scalars = [
      ...['1', '1.10', '0o14', '.inf', '~', 'null', 'True', 'yes', '2024-01-01', '"quoted"', "'it''s'", '"a # b"', "'a: b'", '""'],
      ...['a#b', 'a #c', 'x:y', 'http://x:80/y', 'é ü 中', 'PSADT 4.0 (silent)', 'a  b', 'a]b', 'a,b', 'a}b', 'a{b', "a'b"],
      ...['-x', '?x', '!t', '&a', '*a', 'a!b', 'a  ', '"a,}"', "'a,}'", '"', '7.4.x', 'patch-tuesday', '2d'],
    ];
    let taken = 0;
    for (const a of scalars)
      for (const b of scalars)
        for (const [open, sep, close] of [
          ['{ ', ', ', ' }'],
          ['{', ' , ', '}'],
        ])
          if (compare(`kind: K\nspec:\n  update: ${open}track: ${a}${sep}group: ${b}${close} # why\n  z: 2\n`)) taken++;
    // The plain and quoted ones are read here; the rest are left to the full path.
    expect(taken).toBeGreaterThan(scalars.length ** 2 / 2);
    expect(parsePlainYaml('f.yaml', 'spec:\n  update: { track: latest, group: patch-tuesday }\n')?.documents[0]?.value).toEqual({
      spec: { update: { track: 'latest', group: 'patch-tuesday' } },
    });
  });

  // Regression: the property test's first failure. js-yaml reads an empty item followed by a shallower
  // one as one list (`[[null, 1]]`), the yaml package as two levels (`[[null], 1]`).
  it('leaves an empty item to the full path (js-yaml read `-\\n    - \\n  - 1` as one list)', () => {
    const text = 'a:\n  -\n    - \n  - 1\n';
    expect(parsePlainYaml('f.yaml', text)).toBeUndefined();
    expect(parseYamlFile('f.yaml', text).documents[0]!.value).toEqual({ a: [[null], 1] });
  });

  it('reads generated and mutated documents exactly as the yaml package, whenever it reads them', () => {
    // Mostly scalars the fast path reads (each resolved by the core schema in its own way), some it must decline.
    const readable = [
      '1',
      '1.10',
      '24.10',
      '0o14',
      '012',
      '0x1F',
      '-5',
      '+3',
      '.5',
      '1e3',
      '1E-2',
      '.inf',
      '-.Inf',
      '.nan',
      '.NaN',
      '-.5',
      '~',
      'null',
      'Null',
      'NULL',
      'true',
      'True',
      'FALSE',
      'yes',
      'no',
      'on',
      'off',
      'y',
      '2024-01-01',
      '2024-01-01T10:00:00Z',
      '1_000',
      '0b101',
      '"quoted"',
      "'single'",
      "'it''s'",
      '"esc \\" \\n \\t \\u00e9 \\/"',
      '"a # b"',
      "'a: b'",
      '""',
      "''",
      'a#b',
      'a #c',
      'http://x:80/y',
      'C:\\Program Files',
      'x:y',
      'é ü 中',
      '7-Zip 24.09',
      'PSADT 4.0 (silent)',
      'a  b',
      'a]b',
      'a,b',
    ];
    const declined = [
      'with: colon',
      'trailing:',
      '- dash',
      '-x',
      '[a]',
      '{a: 1}',
      '&anchor v',
      '*alias',
      '!tag v',
      '|',
      '>',
      '%x',
      '@x',
      '`x',
      '?x',
      ':x',
      '',
      '"\\x41"',
      '"unterminated',
      "'also",
    ];
    const scalar = fc.oneof(
      { arbitrary: fc.constantFrom(...readable), weight: 60 },
      { arbitrary: fc.constantFrom(...declined), weight: 1 },
    );
    const key = fc.oneof(
      {
        arbitrary: fc.constantFrom('a', 'b', 'c', 'name', 'version', 'kind', 'spec', 'x.y', 'a/b', 'a-b', '_k', 'A1', 'yes', 'on'),
        weight: 60,
      },
      { arbitrary: fc.constantFrom('true', 'null', '1a', '"q"', 'k k'), weight: 1 },
    );
    type Tree = string | { map: [string, Tree][]; flow?: boolean } | { seq: Tree[] };
    const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar,
        fc.record({
          map: fc.uniqueArray(fc.tuple(key, tie('node')), { minLength: 1, maxLength: 3, selector: ([k]) => k }),
          flow: fc.boolean(),
        }),
        fc.record({ seq: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
      ),
    })).node;
    const render = (t: Tree, indent: string, step: string, comment: boolean): string[] => {
      if (typeof t === 'string') return [t];
      if ('map' in t)
        return t.map.flatMap(([k, v]) => {
          // A mapping of scalars, sometimes written as one flow mapping (`k: { a: 1, b: x }`).
          const scalars =
            typeof v !== 'string' && 'map' in v && v.flow === true
              ? v.map.flatMap(([a, x]) => (typeof x === 'string' ? [`${a}: ${x}`] : []))
              : [];
          if (typeof v !== 'string' && 'map' in v && scalars.length === v.map.length)
            return [`${indent}${k}: { ${scalars.join(', ')} }${comment ? ' # note' : ''}`];
          const inner = render(v, indent + step, step, comment);
          if (typeof v === 'string') return [`${indent}${k}: ${v}${comment ? ' # note' : ''}`];
          return [`${indent}${k}:`, ...inner];
        });
      return t.seq.flatMap((v) => {
        if (typeof v === 'string') return [`${indent}- ${v}`];
        const inner = render(v, indent + step, step, comment);
        if ('map' in v) return [`${indent}- ${inner[0]!.slice(indent.length + step.length)}`, ...inner.slice(1)];
        return [`${indent}-`, ...inner];
      });
    };
    const mutation = fc.tuple(fc.constantFrom('drop', 'dup', 'indent', 'dedent', 'tab', 'comment', 'sep', 'trim'), fc.nat());
    const mutate = (lines: string[], [what, at]: [string, number]): string[] => {
      if (lines.length === 0) return lines;
      const i = at % lines.length;
      const l = lines[i]!;
      const out = [...lines];
      if (what === 'drop') out.splice(i, 1);
      else if (what === 'dup') out.splice(i, 0, l);
      else if (what === 'indent') out[i] = ` ${l}`;
      else if (what === 'dedent') out[i] = l.replace(/^ /, '');
      else if (what === 'tab') out[i] = l.replace(' ', '\t');
      else if (what === 'comment') out.splice(i, 0, '# c');
      else if (what === 'sep') out.splice(i, 0, '---');
      else out[i] = l.slice(0, Math.max(0, l.length - 1 - (at % 3)));
      return out;
    };
    let taken = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        fc.array(fc.record({ map: fc.uniqueArray(fc.tuple(key, tree), { minLength: 1, maxLength: 5, selector: ([k]) => k }) }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.constantFrom('  ', '    ', ' '),
        fc.boolean(),
        fc.oneof(fc.constant([] as [string, number][]), fc.array(mutation, { maxLength: 2 })),
        (docs, step, comment, mutations) => {
          let lines = docs.flatMap((d, i) => [...(i > 0 || comment ? ['---'] : []), ...render(d, '', step, comment)]);
          for (const m of mutations) lines = mutate(lines, m);
          runs++;
          if (compare(`${lines.join('\n')}\n`)) taken++;
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 1500), seed: Number(process.env.SEED ?? 20261127) },
    );
    // Not a test that passes by declining everything: a good share is read by the fast path.
    expect(taken).toBeGreaterThan(runs / 5);
  });
});
