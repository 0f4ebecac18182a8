// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/** Folders in dependency order: a folder may import only from itself and those to its left. */
const layers = ['tools', 'store', 'core', 'http', 'features']

/** @param {string} layer */
function forbiddenFor(layer) {
  const i = layers.indexOf(layer)
  return layers.slice(i + 1).map((l) => ({
    group: [`**/${l}/**`, `../${l}/*`, `../../${l}/*`, `../../../${l}/*`],
    message: `src/${layer} must not import from src/${l} (ARCHITECTURE.md: dependencies point one way).`,
  }))
}

export default tseslint.config(
  { ignores: ['node_modules', 'dist', 'svc_data', 'coverage', 'bin'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      // Fastify handlers are async by contract, whether or not they await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  ...layers.slice(0, -1).map((layer) => ({
    files: [`src/${layer}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: forbiddenFor(layer) }] },
  })),
  {
    files: ['test/**/*.ts', 'src/**/*.test.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
)
