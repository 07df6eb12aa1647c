/**
 * Every way a manifest can be wrong, each with the rule id, the exact line:column and the message
 * a person sees. Two tables: the files of `test/fixtures/invalid/` (each states what it expects in
 * its `# expect:` / `# warn:` header lines, test/support/expect-header.ts), and cases below that need more than one YAML file
 * (content directories, symlinks, several files).
 */
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import type { LoadOptions } from '../../src/manifests/load.js';
import type { Problem } from '../../src/manifests/model.js';
import { BASE_FILE, caseRepo } from './invalid-support.js';
import { parseExpectHeader } from '../support/expect-header.js';
import { tempDir } from '../support/temp-dir.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/invalid/', import.meta.url));

interface Expected {
  severity: Problem['severity'];
  file: string;
  rule: string;
  at: string;
  message: string;
}

/** A fixture pins each problem whole: one rule id, its position and a message. */
function parseHeader(file: string, text: string): Expected[] {
  return parseExpectHeader(text).map((e) => {
    const [rule, ...more] = e.rules;
    if (!rule || more.length > 0 || !rule.includes('.') || e.at === null || e.message === null)
      throw new Error(`${file}: a fixture's header pins one rule id, LINE:COL and a message`);
    return { severity: e.severity, file, rule, at: e.at, message: e.message };
  });
}

function checkProblems(problems: readonly Problem[], expected: readonly Expected[]): void {
  const got = problems.map((p) => ({ severity: p.severity, file: p.file, rule: p.rule, at: `${p.line}:${p.column}`, message: p.message }));
  const key = (x: { severity: string; file: string; rule: string; at: string }): string => `${x.file} ${x.at} ${x.severity} ${x.rule}`;
  expect(got.map(key).sort()).toEqual(expected.map(key).sort());
  for (const e of expected) {
    const match = got.find((g) => key(g) === key(e) && g.message.includes(e.message));
    expect(match, `${key(e)} with message containing ${JSON.stringify(e.message)}; got ${JSON.stringify(got)}`).toBeDefined();
  }
}

const fixtureFiles = (await readdir(FIXTURES)).filter((f) => f.endsWith('.yaml')).sort();

describe('invalid fixtures (test/fixtures/invalid)', () => {
  it('has a case for every rule and at least 60 of them', () => {
    expect(fixtureFiles.length).toBeGreaterThanOrEqual(60);
  });

  it.each(fixtureFiles)('%s', async (name) => {
    const text = await readFile(join(FIXTURES, name), 'utf8');
    const expected = parseHeader(name, text);
    expect(expected.length, 'a fixture states what it expects').toBeGreaterThan(0);
    const repo = await caseRepo({ [name]: text });
    const r = await loadManifests(repo);
    checkProblems(r.problems, expected);
    expect(r.problems.filter((p) => p.file === BASE_FILE)).toEqual([]);
    expect(r.desired === null).toBe(expected.some((e) => e.severity === 'error'));
  });
});

// ------------------------------------------------------------------ cases that need a repository

const custom = (content: string, name = 'tool'): string => `apiVersion: packsync.dev/v1
kind: Package
metadata:
  name: ${name}
spec:
  custom:
    name: Tool
    version: 1.0.0
    sourceType: msi
    content: ${content}
`;

const deployment = (name: string, state = 'running'): string => `apiVersion: packsync.dev/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  flow: seven-zip
  package: seven-zip-24-08
  state: ${state}
`;

interface RepoCase {
  name: string;
  files: Record<string, string>;
  setup?: (dir: string) => Promise<void>;
  options?: LoadOptions;
  expect: Omit<Expected, 'severity'>[];
}

const outsideDir = async (): Promise<string> => {
  const d = await tempDir('packsync-outside-');
  await writeFile(join(d, 'secret.msi'), 'not yours\n');
  return d;
};

const repoCases: RepoCase[] = [
  {
    name: 'content directory that does not exist',
    files: { 'p.yaml': custom('content/nope') },
    expect: [{ file: 'p.yaml', rule: 'content.missing', at: '10:14', message: 'content directory "content/nope" does not exist' }],
  },
  {
    name: 'content ../outside leaves the repository',
    files: { 'p.yaml': custom('../outside') },
    expect: [{ file: 'p.yaml', rule: 'content.outside-repo', at: '10:14', message: 'content "../outside" leaves the repository' }],
  },
  {
    name: 'content that climbs out through a subfolder',
    files: { 'p.yaml': custom('content/../../outside') },
    expect: [{ file: 'p.yaml', rule: 'content.outside-repo', at: '10:14', message: 'leaves the repository' }],
  },
  {
    name: 'absolute content path',
    files: { 'p.yaml': custom('/etc') },
    expect: [{ file: 'p.yaml', rule: 'content.outside-repo', at: '10:14', message: 'must be a path relative to the repository root' }],
  },
  {
    name: 'content symlink that leaves the repository',
    files: { 'p.yaml': custom('content/linked') },
    setup: async (dir) => symlink(await outsideDir(), join(dir, 'content/linked')),
    expect: [{ file: 'p.yaml', rule: 'content.outside-repo', at: '10:14', message: 'outside the repository (a symlink leaves it)' }],
  },
  {
    name: 'content is the repository root',
    files: { 'p.yaml': custom('.') },
    expect: [{ file: 'p.yaml', rule: 'content.is-root', at: '10:14', message: 'is the repository root; give a subdirectory' }],
  },
  {
    name: 'content is a file',
    files: { 'p.yaml': custom('content/tool/setup.msi') },
    expect: [{ file: 'p.yaml', rule: 'content.not-directory', at: '10:14', message: 'is a file; it must be a directory' }],
  },
  {
    name: 'empty content directory',
    files: { 'p.yaml': custom('content/empty') },
    setup: (dir) => mkdir(join(dir, 'content/empty/sub'), { recursive: true }).then(() => undefined),
    expect: [{ file: 'p.yaml', rule: 'content.empty', at: '10:14', message: 'has no files; the service cannot finalize an empty upload' }],
  },
  {
    name: 'a symlink inside content that leaves the content directory',
    files: { 'p.yaml': custom('content/tool') },
    setup: (dir) => symlink(join(dir, BASE_FILE), join(dir, 'content/tool/base.yaml')),
    expect: [
      {
        file: 'p.yaml',
        rule: 'content.symlink',
        at: '10:14',
        message: 'base.yaml is a symlink to ../../00-base.yaml, outside the content directory',
      },
    ],
  },
  {
    name: 'a broken symlink inside content',
    files: { 'p.yaml': custom('content/tool') },
    setup: (dir) => symlink(join(dir, 'gone'), join(dir, 'content/tool/gone')),
    expect: [{ file: 'p.yaml', rule: 'content.symlink', at: '10:14', message: 'gone is a broken symlink' }],
  },
  {
    name: 'duplicate names across files point at the second, naming the first',
    files: { 'a.yaml': deployment('rollout'), 'b/b.yaml': `# comment\n${deployment('rollout', 'stopped')}` },
    expect: [
      {
        file: 'b/b.yaml',
        rule: 'manifest.duplicate-name',
        at: '5:9',
        message: 'another Deployment has the same name (first at a.yaml:4:9)',
      },
    ],
  },
  {
    name: 'several files with errors are all reported at once',
    files: {
      'a.yaml': deployment('one', 'runing'),
      'b.yaml': deployment('two').replace('flow: seven-zip', 'flow: seven'),
      'c.yaml': 'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: x\nspec:\n  app: 7-Zip\n  scope: users\n',
    },
    expect: [
      { file: 'a.yaml', rule: 'schema.enum', at: '8:10', message: 'did you mean "running"?' },
      { file: 'b.yaml', rule: 'ref.unresolved', at: '6:9', message: 'spec.flow "seven" does not name a Flow' },
      { file: 'c.yaml', rule: 'schema.enum', at: '7:10', message: 'did you mean "user"?' },
    ],
  },
  {
    name: 'a file over the size limit',
    files: { 'big.yaml': `${deployment('big')}# ${'x'.repeat(2000)}\n` },
    options: { maxFileBytes: 1000 },
    expect: [{ file: 'big.yaml', rule: 'file.too-large', at: '1:1', message: 'more than the 1000 a manifest file may have' }],
  },
  {
    name: 'a file over the default 1 MiB limit',
    files: { 'big.yaml': `${deployment('big')}# ${'x'.repeat(1024 * 1024)}\n` },
    expect: [{ file: 'big.yaml', rule: 'file.too-large', at: '1:1', message: 'a manifest file may have' }],
  },
  {
    name: 'more documents in one file than the limit',
    files: { 'many.yaml': Array.from({ length: 5001 }, (_, i) => deployment(`d${i}`)).join('---\n') },
    expect: [{ file: 'many.yaml', rule: 'file.too-many-documents', at: `${5000 * 9}:1`, message: 'more than 5000 documents in one file' }],
  },
  {
    name: 'a custom package without content, in a multi-document file with a tenant upload',
    files: {
      'agent.yaml': `${custom('x').replace('    content: x\n', '')}---\napiVersion: packsync.dev/v1\nkind: TenantUpload\nmetadata:\n  name: up\nspec:\n  tenant: contoso.onmicrosoft.com\n  package: tool\n`,
    },
    expect: [
      {
        file: 'agent.yaml',
        rule: 'content.required',
        at: '6:3',
        message: 'the service cannot finalize a custom package without uploaded files',
      },
    ],
  },
];

describe('invalid repositories', () => {
  it.each(repoCases)('$name', async (c) => {
    const repo = await caseRepo(c.files);
    await c.setup?.(repo);
    const r = await loadManifests(repo, c.options);
    checkProblems(
      r.problems,
      c.expect.map((e) => ({ ...e, severity: 'error' as const })),
    );
    expect(r.desired).toBeNull();
  });

  it('reports a path that does not exist', async () => {
    const missing = join(tmpdir(), 'packsync-no-such-dir-4711');
    const r = await loadManifests(missing);
    expect(r.problems).toEqual([
      { file: missing, line: 1, column: 1, pointer: '', rule: 'file.not-found', message: `${missing} does not exist`, severity: 'error' },
    ]);
    expect(r.desired).toBeNull();
  });
});
