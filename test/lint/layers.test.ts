/**
 * Lint enforces the layer order of docs/architecture.md: an upward import fails `npm run lint`, and the
 * simulator may take only wire *types* from the client. Linted with the project's own rules.
 */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the lint configuration, without type declarations.
import { layerRules } from '../../eslint/layers.js';

const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { '@typescript-eslint': tseslint.plugin } },
    ...(layerRules as object[]),
    { files: ['test/fixtures/lint-cycle/*.ts'], rules: { 'river/no-cycles': 'error' } },
  ],
});

async function problems(filePath: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath });
  return (r?.messages ?? []).map((m) => `${m.ruleId ?? ''}: ${m.message}`);
}

async function fixtureProblems(name: string): Promise<string[]> {
  const [r] = await eslint.lintFiles([`test/fixtures/lint-cycle/${name}`]);
  return (r?.messages ?? []).map((m) => `${m.ruleId ?? ''}: ${m.message}`);
}

describe('layer order (docs/architecture.md) in lint', () => {
  it('refuses an upward import: the planner importing the applier', async () => {
    expect(await problems('src/plan/probe.ts', "import { applyPlan } from '../apply/executor.js';\nexport const x = applyPlan;\n")).toEqual(
      [
        expect.stringMatching(
          /^@typescript-eslint\/no-restricted-imports: '..\/apply\/executor.js' import is restricted .* src\/plan may import only from the layers below it/,
        ),
      ],
    );
  });

  it('refuses it from a nested folder too, and lets a layer import below itself', async () => {
    expect(await problems('src/agent/notify/probe.ts', "import { x } from '../../cli/run-cli.js';\nexport const y = x;\n")).toHaveLength(1);
    expect(await problems('src/api/probe.ts', "import type { Plan } from '../plan/types.js';\nexport type P = Plan;\n")).toHaveLength(1);
    expect(
      await problems(
        'src/plan/probe.ts',
        "import { NameIndex } from '../live/resolve.js';\nimport { errorCode } from '../util/errors.js';\nexport const x = [NameIndex, errorCode];\n",
      ),
    ).toEqual([]);
  });

  it('lets the simulator take wire types but not value tables or anything else of packsync', async () => {
    expect(
      await problems(
        'src/simulator/probe.ts',
        "import type { V1FlowViewModel } from '../api/wire/index.js';\nexport type F = V1FlowViewModel;\n",
      ),
    ).toEqual([]);
    expect(
      await problems('src/simulator/probe.ts', "import { FLOW_FLAGS } from '../api/wire/index.js';\nexport const f = FLOW_FLAGS;\n"),
    ).toHaveLength(1);
    expect(await problems('src/simulator/probe.ts', "import { plan } from '../plan/planner.js';\nexport const p = plan;\n")).toHaveLength(
      1,
    );
  });

  it('refuses an upward dynamic import() and require(), and a computed one it cannot follow', async () => {
    expect(await problems('src/plan/probe.ts', "export const load = () => import('../apply/executor.js');\n")).toEqual([
      expect.stringMatching(/^river\/dynamic-imports: '..\/apply\/executor.js' src\/plan may import only from the layers below it/),
    ]);
    expect(
      await problems('src/api/probe.ts', "declare const require: (s: string) => unknown;\nexport const x = require('../agent/loop.js');\n"),
    ).toHaveLength(1);
    expect(await problems('src/cli/probe.ts', "const name = 'x';\nexport const load = () => import(`./${name}.js`);\n")).toEqual([
      expect.stringMatching(/^river\/dynamic-imports: A dynamic import with a computed path/),
    ]);
    expect(await problems('src/cli/probe.ts', "export const load = () => import('../agent/loop.js');\n")).toEqual([]);
  });

  it('keeps the planner pure: node:crypto only', async () => {
    expect(await problems('src/plan/probe.ts', "import { createHash } from 'node:crypto';\nexport const h = createHash;\n")).toEqual([]);
    for (const mod of ['node:fs', 'node:child_process', 'fs/promises', 'http']) {
      expect(await problems('src/plan/probe.ts', `import * as m from '${mod}';\nexport const x = m;\n`)).toEqual([
        expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .* src\/plan is pure/),
      ]);
    }
    expect(await problems('src/plan/probe.ts', "export const fs = () => import('node:fs');\n")).toHaveLength(1);
    expect(await problems('src/apply/probe.ts', "import { readFile } from 'node:fs/promises';\nexport const r = readFile;\n")).toEqual([]);
  });

  it('refuses an import cycle, a type-only back edge included, and names its path', async () => {
    expect(await fixtureProblems('a.ts')).toEqual([
      'river/no-cycles: Import cycle: test/fixtures/lint-cycle/a.ts → test/fixtures/lint-cycle/b.ts → test/fixtures/lint-cycle/a.ts. Move the shared part (often a type) into a module both can import.',
    ]);
    expect(await fixtureProblems('b.ts')).toHaveLength(1);
    expect(await fixtureProblems('c.ts')).toEqual([]);
  });

  it('finds no cycle in src/ as it is', async () => {
    const results = await eslint.lintFiles(['src/**/*.ts']);
    const cycles = results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId === 'river/no-cycles').map((m) => `${r.filePath}: ${m.message}`),
    );
    expect(cycles).toEqual([]);
  });
});
