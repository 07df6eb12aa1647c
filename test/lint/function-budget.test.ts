/**
 * The function budget (docs/architecture.md, "Function budget") in lint: a function over 80 lines of
 * code or 5 parameters fails `npm run lint` unless eslint/function-budget.js lists it as debt, and a
 * listed function that is within budget fails too, so the list only shrinks.
 */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the lint configuration, without type declarations.
import { riverPlugin } from '../../eslint/river.js';

function linter(debt: Record<string, string[]> = {}): ESLint {
  return new ESLint({
    cwd: process.cwd(),
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { river: riverPlugin as ESLint.Plugin } },
      { files: ['**/*.ts'], rules: { 'river/function-budget': ['error', { maxLines: 80, maxParams: 5, debt }] } },
    ],
  });
}

async function problems(code: string, debt?: Record<string, string[]>): Promise<string[]> {
  const [r] = await linter(debt).lintText(code, { filePath: 'src/plan/probe.ts' });
  return (r?.messages ?? []).map((m) => m.message);
}

const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join('\n');
const fn = (name: string, lines: number): string => `export function ${name}(): void {\n${body(lines - 2)}\n}\n`;

describe('function budget', () => {
  it('refuses a function of 81 lines of code and takes one of 80', async () => {
    expect(await problems(fn('long', 81))).toEqual([expect.stringMatching(/^Function 'long' has 81 lines of code; the budget is 80/)]);
    expect(await problems(fn('fits', 80))).toEqual([]);
  });

  it('does not count blank lines and comment lines', async () => {
    const padded = `export function padded(): void {\n${body(78)}\n\n  // why\n  /* more\n     why */\n}\n`;
    expect(await problems(padded)).toEqual([]);
  });

  it('refuses six parameters, names arrow functions by their variable, and nested anonymous ones by their owner', async () => {
    expect(await problems('export const six = (a: 1, b: 2, c: 3, d: 4, e: 5, f: 6): number => a + b + c + d + e + f;\n')).toEqual([
      "Function 'six' has 6 parameters; the budget is 5: pass an options object.",
    ]);
    const nested = `export function outer(): void {\n  [1].forEach(() => {\n${body(81)}\n  });\n}\n`;
    expect(await problems(nested)).toEqual([
      expect.stringMatching(/^Function 'outer' has 85 lines/),
      expect.stringMatching(/^Function 'outer>anonymous' has 83 lines/),
    ]);
  });

  it('lets listed debt pass, and fails when a listed function is within budget (the list only shrinks)', async () => {
    expect(await problems(fn('long', 90), { 'src/plan/probe.ts': ['long'] })).toEqual([]);
    expect(await problems(fn('long', 20), { 'src/plan/probe.ts': ['long'] })).toEqual([
      "'long' is within the function budget now: remove it from the debt list in eslint/function-budget.js.",
    ]);
  });
});
