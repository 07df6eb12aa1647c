// Type-aware lint: the rules that catch real defects in async, I/O-heavy code.
import tseslint from 'typescript-eslint';
import { layerRules } from './eslint/layers.js';
import { BUDGET, DEBT } from './eslint/function-budget.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'examples/**', '.packsync/**', 'src/**/*.generated.ts'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js', 'eslint/*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
    },
  },
  ...layerRules,
  { files: ['src/**/*.ts'], rules: { 'river/function-budget': ['error', { ...BUDGET, debt: DEBT }] } },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  { files: ['eslint.config.js', 'eslint/*.js', '.ci/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
