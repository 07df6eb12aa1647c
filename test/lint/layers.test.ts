/**
 * Lint enforces the layer order of design §2: an upward import fails `npm run lint`, and the
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
  ],
});

async function problems(filePath: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath });
  return (r?.messages ?? []).map((m) => `${m.ruleId ?? ''}: ${m.message}`);
}

describe('layer order (design §2) in lint', () => {
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
    expect(await problems('src/agent/notify/probe.ts', "import { x } from '../../cli/program.js';\nexport const y = x;\n")).toHaveLength(1);
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
        "import type { V1FlowViewModel } from '../api/wire-types.js';\nexport type F = V1FlowViewModel;\n",
      ),
    ).toEqual([]);
    expect(
      await problems('src/simulator/probe.ts', "import { FLOW_FLAGS } from '../api/wire-types.js';\nexport const f = FLOW_FLAGS;\n"),
    ).toHaveLength(1);
    expect(await problems('src/simulator/probe.ts', "import { plan } from '../plan/planner.js';\nexport const p = plan;\n")).toHaveLength(
      1,
    );
  });
});
