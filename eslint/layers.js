// The river of design §2, enforced: a folder of src/ imports only from folders below it. `util` is a
// leaf every layer may use (it imports nothing of src/); the simulator shares only wire *types*
// with the client, so a wrong guess about the service is not mirrored by the fake it is tested
// against. `export` reads live state and the state, beside the engine; only the CLI starts the
// simulator.
export const LAYERS = ['util', 'api', 'manifests', 'state', 'live', 'plan', 'apply', 'engine', 'export', 'agent', 'cli'];

const above = (layer) => LAYERS.slice(LAYERS.indexOf(layer) + 1);
const relative = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;

function layerRule(layer) {
  const forbidden = [...above(layer), ...(layer === 'cli' ? [] : ['simulator'])];
  return {
    files: [`src/${layer}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns:
            forbidden.length === 0
              ? []
              : [
                  {
                    regex: relative(forbidden),
                    message: `src/${layer} may import only from the layers below it (design §2: ${LAYERS.join(' → ')}).`,
                  },
                ],
        },
      ],
    },
  };
}

const simulatorRule = {
  files: ['src/simulator/**/*.ts'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: relative(LAYERS.filter((l) => l !== 'util' && l !== 'api')),
            message: 'The simulator imports nothing of packsync but wire types and util (design §2).',
          },
          {
            regex: relative(['api']),
            allowTypeImports: true,
            message: 'The simulator shares only wire *types* with the client, never value tables (design §2).',
          },
        ],
      },
    ],
  },
};

export const layerRules = [...LAYERS.filter((l) => l !== 'cli').map(layerRule), simulatorRule];
