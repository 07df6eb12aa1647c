// The river of docs/architecture.md ("Layers"), enforced: a folder of src/ imports only from folders
// below it, statically or with `import()`/`require()`. `util` is a leaf every layer may use (it
// imports nothing of src/); the simulator shares only wire *types* with the client, so a wrong guess
// about the service is not mirrored by the fake it is tested against. `export` reads live state and
// the state, beside the engine; only the CLI starts the simulator. The planner is pure: of Node it
// may use `crypto` (hashing) only, no files, network, clock or processes. No file of src/ is part of
// an import cycle, type-only imports included.
import { builtinModules } from 'node:module';
import { riverPlugin } from './river.js';

export const LAYERS = ['util', 'api', 'manifests', 'state', 'live', 'plan', 'apply', 'engine', 'export', 'update', 'agent', 'cli'];

const above = (layer) => LAYERS.slice(LAYERS.indexOf(layer) + 1);
const relative = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;
const nodeExceptCrypto = `^(node:(?!crypto$).*|(${builtinModules.filter((m) => m !== 'crypto' && !m.startsWith('_')).join('|')})(/.*)?)$`;

function layerPatterns(layer) {
  const forbidden = [...above(layer), ...(layer === 'cli' ? [] : ['simulator'])];
  const patterns =
    forbidden.length === 0
      ? []
      : [
          {
            regex: relative(forbidden),
            message: `src/${layer} may import only from the layers below it (${LAYERS.join(' → ')}; docs/architecture.md).`,
          },
        ];
  if (layer === 'plan')
    patterns.push({
      regex: nodeExceptCrypto,
      message: 'src/plan is pure: of Node it may import crypto only (docs/architecture.md, "Layers").',
    });
  return patterns;
}

function layerRule(layer) {
  const patterns = layerPatterns(layer);
  return {
    files: [`src/${layer}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
      'river/dynamic-imports': ['error', { patterns }],
    },
  };
}

const simulatorPatterns = [
  {
    regex: relative(LAYERS.filter((l) => l !== 'util' && l !== 'api')),
    message: 'The simulator imports nothing of packsync but wire types and util (docs/architecture.md).',
  },
];

const simulatorRule = {
  files: ['src/simulator/**/*.ts'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          ...simulatorPatterns,
          {
            regex: relative(['api']),
            allowTypeImports: true,
            message: 'The simulator shares only wire *types* with the client, never value tables (docs/architecture.md).',
          },
        ],
      },
    ],
    // A dynamic import is never type-only: the api folder is out for it too.
    'river/dynamic-imports': [
      'error',
      {
        patterns: [
          ...simulatorPatterns,
          { regex: relative(['api']), message: 'The simulator takes nothing but wire types from the client.' },
        ],
      },
    ],
  },
};

const everyFile = {
  files: ['src/**/*.ts'],
  rules: { 'river/no-cycles': 'error', 'river/dynamic-imports': ['error', { patterns: [] }] },
};

export const layerRules = [
  { plugins: { river: riverPlugin } },
  everyFile,
  ...LAYERS.filter((l) => l !== 'cli').map(layerRule),
  simulatorRule,
];
