// @ts-check
import { dirname, relative, resolve, sep } from 'node:path'
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/** Folders in dependency order: a folder may import only from itself and those to its left. */
const layers = ['tools', 'store', 'cluster', 'core', 'http', 'features']

/** @param {string} layer */
function forbiddenFor(layer) {
  const i = layers.indexOf(layer)
  return layers.slice(i + 1).map((l) => ({
    group: [`**/${l}/**`, `../${l}/*`, `../../${l}/*`, `../../../${l}/*`],
    message: `src/${layer} must not import from src/${l} (ARCHITECTURE.md: dependencies point one way).`,
  }))
}

/**
 * The repo-relative path (with `/`) an import of `source` from `filename` points to, or null for
 * a package import.
 * @param {string} filename
 * @param {unknown} source
 */
function importTarget(filename, source) {
  if (typeof source !== 'string' || !source.startsWith('.')) return null
  return relative(import.meta.dirname, resolve(dirname(filename), source))
    .split(sep)
    .join('/')
}

/**
 * The feature folder a repo-relative path lies in (`src/features/<name>/…`), or null.
 * @param {string} path
 */
function featureOf(path) {
  return /^src\/features\/([^/]+)\//.exec(path)?.[1] ?? null
}

/**
 * A rule that reports every import (static, dynamic, re-export) whose target `problem` rejects.
 * @param {string} description
 * @param {(file: string, target: string) => string | null} problem the message, or null if allowed
 * @returns {import('eslint').Rule.RuleModule}
 */
function importRule(description, problem) {
  return {
    meta: { type: 'problem', docs: { description }, schema: [] },
    create(context) {
      const file = relative(import.meta.dirname, context.filename)
        .split(sep)
        .join('/')
      /** @param {import('estree').Node & { source?: import('estree').Node | null }} node */
      const check = (node) => {
        const source = node.source
        if (!source || source.type !== 'Literal') return
        const target = importTarget(context.filename, source.value)
        const message = target === null ? null : problem(file, target)
        if (message) context.report({ node: source, message })
      }
      return {
        ImportDeclaration: check,
        ImportExpression: check,
        ExportAllDeclaration: check,
        ExportNamedDeclaration: check,
      }
    },
  }
}

/** Folder boundaries the layer rule cannot express (ARCHITECTURE.md "The seams"). */
const boundaries = {
  rules: {
    'no-cross-feature-imports': importRule(
      'A feature imports only its own folder, never another feature or the features list.',
      (file, target) => {
        const own = featureOf(file)
        if (own === null) return null
        const other = featureOf(target)
        if (other !== null && other !== own)
          return `src/features/${own} must not import from src/features/${other}: reach another feature through app.services, hooks or events (ARCHITECTURE.md).`
        if (/^src\/features\/index(\.[jt]s)?$/.test(target))
          return `src/features/${own} must not import the features list (src/features/index.ts).`
        return null
      },
    ),
    'no-sql-in-routes': importRule(
      "A route file calls its feature's service: it imports no SQL builder.",
      (file, target) =>
        /^src\/features\/[^/]+\/routes\//.test(file) && /^src\/store\/sql(\.[jt]s)?$/.test(target)
          ? `${file} must not build SQL: a route reads the request and calls its feature's service, where the SQL goes (ARCHITECTURE.md).`
          : null,
    ),
    'no-dialect-imports': importRule(
      'Only src/store imports a store engine (store/sqlite, store/postgres).',
      (file, target) => {
        if (file.startsWith('src/store/')) return null
        const engine = /^src\/store\/(sqlite|postgres)(\/|$)/.exec(target)?.[1]
        return engine
          ? `src/store/${engine} is internal to src/store: import the Store contract from src/store/index.ts (ARCHITECTURE.md: dialect differences live only under store/<dialect>/).`
          : null
      },
    ),
  },
}

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'dist',
      'svc_data',
      'coverage',
      'bin',
      '.test-data',
      'test-artifacts',
      // Migration files in PocketBase's JSVM (its globals, its generated formatting).
      'test/pocketbase/folder/app/pb_migrations',
      'test/pocketbase/migrations/*/**/*.js',
    ],
  },
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
    files: ['src/**/*.ts'],
    plugins: { svcbase: boundaries },
    rules: {
      'svcbase/no-cross-feature-imports': 'error',
      'svcbase/no-dialect-imports': 'error',
      'svcbase/no-sql-in-routes': 'error',
    },
  },
  // Unit tests state the expected SQL of each dialect side by side, so they may name an engine.
  { files: ['src/**/*.test.ts'], rules: { 'svcbase/no-dialect-imports': 'off' } },
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
