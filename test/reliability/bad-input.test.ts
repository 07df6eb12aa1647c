/**
 * Bad input: a corpus of broken manifests (test/reliability/corpus/, plus cases generated here that
 * are too big, binary or need symlinks) is fed one case at a time to a running agent (the Agent
 * class over a directory source) that has applied a good revision. Every case must be rejected with
 * a FILE:LINE:COL position pointing into the case, make no API call at all, and leave the last good
 * revision in force: lastAppliedRevision unchanged, Stalled=True with reason ValidationFailed.
 * `packsync validate` must print the same position and exit 1.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem } from '../../src/manifests/model.js';
import { cli } from '../support/cli.js';
import { parseExpectHeader, ruleMatches } from '../support/expect-header.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { startAgent } from './support/agent.js';
import type { TestAgent } from './support/agent.js';
import { report } from './support/env.js';

const CORPUS = fileURLToPath(new URL('./corpus/', import.meta.url));
const H = 'apiVersion: packsync.dev/v1\n';

interface Case {
  name: string;
  /** Accepted rule prefixes (`yaml`, `schema`, `manifest`, `ref`, `content`, `file`). */
  rules: string[];
  /** The manifest file the error must point into, relative to the repository. */
  file: string;
  /** Writes the case into the repository. */
  write: (repo: string, outside: string) => Promise<void>;
}

/** Committed corpus files: their `# expect: a|b` header says which rule families may reject each (test/support/expect-header.ts). */
async function corpusCases(): Promise<Case[]> {
  const out: Case[] = [];
  for (const cat of (await readdir(CORPUS, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    for (const f of (await readdir(join(CORPUS, cat))).filter((x) => x.endsWith('.yaml')).sort()) {
      const bytes = await readFile(join(CORPUS, cat, f));
      const expected = parseExpectHeader(bytes.toString('utf8'));
      if (expected.length !== 1 || expected[0]!.severity !== 'error') throw new Error(`${cat}/${f} needs one "# expect:" header line`);
      const file = `zz-cases/${cat}-${f}`;
      out.push({ name: `${cat}/${f}`, rules: expected[0]!.rules, file, write: (repo) => put(repo, file, bytes) });
    }
  }
  return out;
}

async function put(repo: string, rel: string, data: string | Buffer): Promise<void> {
  await mkdir(join(repo, rel, '..'), { recursive: true });
  await writeFile(join(repo, rel), data);
}

const customDoc = (content: string): string =>
  `${H}kind: Package\nmetadata:\n  name: corpus-custom\nspec:\n  custom:\n    name: Corpus Tool\n    publisher: Corpus Ltd\n    version: 1.0.0\n    sourceType: msi\n    content: ${content}\n`;

/** Writes at least `bytes` bytes of YAML comment lines without holding them in memory. */
async function bigFile(path: string, bytes: number): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  const line = `# ${'x'.repeat(1021)}\n`;
  const ws = createWriteStream(path);
  let written = 0;
  while (written < bytes) {
    const chunk = line.repeat(256);
    written += chunk.length;
    if (!ws.write(chunk)) await new Promise<void>((r) => ws.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => ws.end((e?: Error | null) => (e ? reject(e) : resolve())));
}

/** Cases too big, binary or structural to commit: written at test time. */
function generatedCases(): Case[] {
  const file = (name: string, rules: string[], data: () => string | Buffer): Case => ({
    name,
    rules,
    file: `zz-cases/${name}.yaml`,
    write: (repo) => put(repo, `zz-cases/${name}.yaml`, data()),
  });
  const content = (
    name: string,
    rules: string[],
    make: (repo: string, outside: string, dir: string) => Promise<void>,
    path = `zz-content/${name}`,
  ): Case => ({
    name,
    rules,
    file: `zz-cases/${name}.yaml`,
    write: async (repo, outside) => {
      await put(repo, `zz-cases/${name}.yaml`, customDoc(path));
      await make(repo, outside, join(repo, path));
    },
  });
  const doc = (name: string): string => `${H}kind: Flow\nmetadata:\n  name: ${name}\nspec:\n  app: 7-Zip\n`;
  return [
    {
      name: 'file-50-mib',
      rules: ['file'],
      file: 'zz-cases/file-50-mib.yaml',
      write: (repo) => bigFile(join(repo, 'zz-cases/file-50-mib.yaml'), 50 * 1024 * 1024),
    },
    {
      name: 'file-just-over-10-mib',
      rules: ['file'],
      file: 'zz-cases/file-just-over-10-mib.yaml',
      write: (repo) => bigFile(join(repo, 'zz-cases/file-just-over-10-mib.yaml'), 10 * 1024 * 1024 + 1),
    },
    file(
      'flow-nesting-million',
      ['yaml'],
      () => `${H}kind: Flow\nmetadata:\n  name: x\nspec:\n  app: ${'['.repeat(400_000)}${']'.repeat(400_000)}\n`,
    ),
    file('flow-nesting-unclosed', ['yaml'], () => `a: ${'['.repeat(300_000)}\n`),
    file('flow-nesting-mixed', ['yaml'], () => `a: ${'[{b: '.repeat(50_000)}1${'}]'.repeat(50_000)}\n`),
    file('block-nesting-deep', ['yaml'], () => `${Array.from({ length: 1400 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n`),
    file('binary-random', ['file'], () => Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256))),
    file('binary-png', ['file'], () =>
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR')]),
    ),
    file('binary-gzip', ['file'], () =>
      Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4b, 0x4c, 0x4a, 0x06, 0x00]),
    ),
    file('latin1-publisher', ['file'], () => Buffer.from(customDoc('content/x').replace('Corpus Ltd', 'Caf\xe9 Ltd'), 'latin1')),
    file('windows-1252-quotes', ['file'], () =>
      Buffer.concat([
        Buffer.from(`${H}kind: Flow\nmetadata:\n  name: x\nspec:\n  name: `),
        Buffer.from([0x93, 0x58, 0x94]),
        Buffer.from('\n  app: 7-Zip\n'),
      ]),
    ),
    file('utf16le-bom', ['file'], () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc('utf-sixteen'), 'utf16le')])),
    file('utf16be-bom', ['file'], () => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(doc('utf-sixteen'), 'utf16le').swap16()])),
    file('utf16le-no-bom', ['file'], () => Buffer.from(doc('utf-sixteen'), 'utf16le')),
    file('utf8-overlong-slash', ['file'], () =>
      Buffer.concat([
        Buffer.from(`${H}kind: Flow\nmetadata:\n  name: x\nspec:\n  name: a`),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from('b\n  app: 7-Zip\n'),
      ]),
    ),
    file('utf8-lone-surrogate', ['file'], () =>
      Buffer.concat([
        Buffer.from(`${H}kind: Flow\nmetadata:\n  name: x\nspec:\n  name: a`),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('\n  app: 7-Zip\n'),
      ]),
    ),
    file('utf8-truncated-at-end', ['file'], () => Buffer.concat([Buffer.from(doc('truncated')), Buffer.from([0xe2, 0x82])])),
    file('nul-in-value', ['file'], () =>
      `${H}kind: Flow\nmetadata:\n  name: x\nspec:\n  name: "a\u0000b"\n  app: 7-Zip\n`.replace('"a\u0000b"', 'a\u0000b'),
    ),
    content('content-symlink-dir-escape', ['content'], async (_repo, outside, dir) => {
      await mkdir(join(dir, '..'), { recursive: true });
      await symlink(outside, dir);
    }),
    content('content-symlink-file-escape', ['content'], async (_repo, outside, dir) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'setup.msi'), 'msi');
      await symlink(join(outside, 'secret.txt'), join(dir, 'secret.txt'));
    }),
    content('content-symlink-etc-passwd', ['content'], async (_repo, _outside, dir) => {
      await mkdir(dir, { recursive: true });
      await symlink('/etc/passwd', join(dir, 'passwd'));
    }),
    content('content-symlink-nested-dir-escape', ['content'], async (_repo, outside, dir) => {
      await mkdir(join(dir, 'sub'), { recursive: true });
      await writeFile(join(dir, 'setup.msi'), 'msi');
      await symlink(outside, join(dir, 'sub', 'more'));
    }),
    content('content-symlink-relative-escape', ['content'], async (_repo, _outside, dir) => {
      await mkdir(dir, { recursive: true });
      await symlink('../../../../../../../../etc', join(dir, 'etc'));
    }),
    content('content-symlink-to-repo-parent', ['content'], async (_repo, _outside, dir) => {
      await mkdir(join(dir, '..'), { recursive: true });
      await symlink('../..', dir);
    }),
    content('content-symlink-loop', ['content'], async (_repo, _outside, dir) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'setup.msi'), 'msi');
      await symlink('.', join(dir, 'again'));
    }),
    content('content-symlink-broken', ['content'], async (_repo, _outside, dir) => {
      await mkdir(dir, { recursive: true });
      await symlink(join(dir, 'nowhere'), join(dir, 'dangling'));
    }),
    content('content-empty-directory', ['content'], async (_repo, _outside, dir) => {
      await mkdir(dir, { recursive: true });
    }),
    content('content-is-a-file', ['content'], async (_repo, _outside, dir) => {
      await mkdir(join(dir, '..'), { recursive: true });
      await writeFile(dir, 'not a directory');
    }),
    content('content-fifo', ['content'], async (_repo, _outside, dir) => {
      await mkdir(dir, { recursive: true });
      execFileSync('mkfifo', [join(dir, 'pipe')]);
    }),
  ];
}

/**
 * Cases live in `zz-cases/` (content in `zz-content/`): sorted after the base files, so an error
 * about a clash between a case and a base manifest is reported in the case file.
 */
async function removeCase(repo: string): Promise<void> {
  await rm(join(repo, 'zz-cases'), { recursive: true, force: true });
  await rm(join(repo, 'zz-content'), { recursive: true, force: true });
}

/** A package no base deployment uses: the corpus's deployments deploy it, so they clash with nothing. */
const SPARE_PACKAGE = `${H}kind: Package\nmetadata:\n  name: seven-zip-23-01\nspec:\n  catalog:\n    app: 7-Zip\n    version: "23.01"\n`;

interface Outcome {
  name: string;
  rules: string[];
  at: string;
}

describe('bad input', async () => {
  const cases = [...(await corpusCases()), ...generatedCases()];
  let sim: TestSim;
  let repo: string;
  let outside: string;
  let a: TestAgent;
  let good: string | null;
  let calls: number;
  const outcomes: Outcome[] = [];

  beforeAll(async () => {
    sim = await startTestSimulator();
    repo = await writeRepo({ wave: 2 });
    await writeFile(join(repo, 'spare.yaml'), SPARE_PACKAGE);
    outside = await tempDir('packsync-outside-');
    await writeFile(join(outside, 'secret.txt'), 'outside the repository\n');
    a = await startAgent({ url: sim.url, key: sim.key, dir: repo });
    await a.pass('first good revision');
    expect(a.status.status.history[0]?.result, a.status.status.history[0]?.message).toBe('Succeeded');
    await a.pass('second good pass');
    expect(a.status.status.history[0]?.writes).toBe(0);
    good = a.status.status.lastAppliedRevision;
    expect(good).toMatch(/^sha256:/);
    calls = (await sim.journal()).length;
  });

  afterAll(async () => {
    // The repository is good again: the agent applies it with no write and the same revision.
    await removeCase(repo);
    await a.pass('good again');
    const last = a.status.status;
    await a.close();
    await sim.close();
    expect(last.history[0]?.result).toBe('Succeeded');
    expect(last.lastAppliedRevision).toBe(good);
    expect(last.history[0]?.writes).toBe(0);
    const rules: Record<string, number> = {};
    for (const o of outcomes) for (const r of o.rules) rules[r] = (rules[r] ?? 0) + 1;
    await report('bad-input', { cases: cases.length, rejected: outcomes.length, byRule: Object.fromEntries(Object.entries(rules).sort()) });
  });

  it('has at least 100 cases, the big, binary and symlink ones included', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    await c.write(repo, outside);
    try {
      await a.pass(`case ${c.name}`);
      const s = a.status.status;
      const errors = s.problems.filter((p: Problem) => p.severity === 'error');
      const shown = errors.map((p) => `${p.file}:${p.line}:${p.column}: ${p.rule}: ${p.message.slice(0, 160)}`).join('\n');
      expect(s.history[0]?.result, shown).toBe('Invalid');
      expect(errors.length).toBeGreaterThan(0);
      for (const p of errors) {
        expect(p.line, shown).toBeGreaterThanOrEqual(1);
        expect(p.column, shown).toBeGreaterThanOrEqual(1);
      }
      const mine = errors.filter((p) => p.file === c.file);
      expect(mine.length, `an error points into ${c.file}:\n${shown}`).toBeGreaterThan(0);
      expect(
        mine.some((p) => c.rules.some((r) => ruleMatches(r, p.rule))),
        `an error of rule ${c.rules.join(' or ')}.* in ${c.file}:\n${shown}`,
      ).toBe(true);
      // The last good revision stays in force, and the status says why.
      expect(s.lastAppliedRevision).toBe(good);
      const stalled = a.status.condition('Stalled');
      expect([stalled.status, stalled.reason]).toEqual(['True', 'ValidationFailed']);
      expect(a.status.condition('Ready').status).toBe('False');
      // Not a single call, write or read, for an invalid revision.
      expect((await sim.journal()).length).toBe(calls);
      // The CLI shows the same FILE:LINE:COL.
      const v = await cli(['validate', '.'], {}, repo);
      expect(v.code).toBe(1);
      const first = mine[0]!;
      expect(v.stderr).toContain(`${first.file}:${first.line}:${first.column}: `);
      outcomes.push({ name: c.name, rules: [...new Set(mine.map((p) => p.rule))], at: `${first.line}:${first.column}` });
    } finally {
      await removeCase(repo);
      // A case that wrongly passed must not fail every case after it.
      calls = (await sim.journal()).length;
    }
  });
});
