import { join } from 'node:path'
import { ESLint } from 'eslint'
import tseslint from 'typescript-eslint'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')

// The repo's eslint.config.js, with the type-aware parts off: the fixtures are not on disk.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
})

/** The boundary errors ESLint reports for `code` as if it were the file at `path`. */
async function boundaryErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) })
  return result!.messages
    .filter((m) => m.severity === 2)
    .map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`)
}

const cases: { name: string; path: string; code: string; expected: RegExp[] }[] = [
  {
    name: 'a feature importing another feature',
    path: 'src/features/alpha/index.ts',
    code: "export { beta } from '../beta/index.js'\n",
    expected: [/no-cross-feature-imports: src\/features\/alpha must not import from .*beta/],
  },
  {
    name: "a feature's route file importing another feature's service",
    path: 'src/features/alpha/routes/things.ts',
    code: "import { gamma } from '../../gamma/service.js'\nexport const x = gamma\n",
    expected: [/no-cross-feature-imports: .*src\/features\/gamma/],
  },
  {
    name: 'a dynamic import of another feature',
    path: 'src/features/alpha/service.ts',
    code: "export const load = () => import('../beta/index.js')\n",
    expected: [/no-cross-feature-imports/],
  },
  {
    name: 'a feature importing the features list',
    path: 'src/features/alpha/index.ts',
    code: "export { builtInFeatures } from '../index.js'\n",
    expected: [/no-cross-feature-imports: .*features list/],
  },
  {
    name: 'core importing a store engine',
    path: 'src/core/things.ts',
    code: "export { SqliteDb } from '../store/sqlite/database.js'\n",
    expected: [/no-dialect-imports: src\/store\/sqlite is internal to src\/store/],
  },
  {
    name: "the cluster importing a feature's module",
    path: 'src/cluster/primary.ts',
    code: "export { MemoryCounterStore } from '../features/rate-limit/limiter.js'\n",
    expected: [/src\/cluster must not import from src\/features/],
  },
  {
    name: 'the cluster importing core',
    path: 'src/cluster/primary.ts',
    code: "export type { App } from '../core/app.js'\n",
    expected: [/src\/cluster must not import from src\/core/],
  },
  {
    name: 'the cluster importing the store contract and tools',
    path: 'src/cluster/primary.ts',
    code: [
      "export type { ClusterMessage } from '../store/cluster.js'",
      "export { MemoryCounterStore } from '../tools/counter-store.js'",
      '',
    ].join('\n'),
    expected: [],
  },
  {
    name: 'a route building SQL',
    path: 'src/features/alpha/routes/things.ts',
    code: "export { sql } from '../../../store/sql.js'\n",
    expected: [/no-sql-in-routes: src\/features\/alpha\/routes\/things.ts must not build SQL/],
  },
  {
    name: "a feature's service building SQL",
    path: 'src/features/alpha/service.ts',
    code: "export { sql } from '../../store/sql.js'\n",
    expected: [],
  },
  {
    name: 'a feature importing the PostgreSQL engine',
    path: 'src/features/alpha/service.ts',
    code: "export { postgresDialect } from '../../store/postgres/postgres-dialect.js'\n",
    expected: [/no-dialect-imports: src\/store\/postgres/],
  },
  {
    name: 'a feature importing its own files, core, http, tools and the store contract',
    path: 'src/features/alpha/routes/things.ts',
    code: [
      "import type { Feature } from '../../../http/feature.js'",
      "import { thing } from '../service.js'",
      "import type { App } from '../../../core/app.js'",
      "import { readBody } from '../../../http/body.js'",
      "import type { Store } from '../../../store/index.js'",
      "import { formatDate } from '../../../tools/dates.js'",
      'export type T = [Feature, App, Store, typeof thing, typeof readBody]',
      'export const f = formatDate',
      '',
    ].join('\n'),
    expected: [],
  },
  {
    name: 'the composition root importing features, and the store importing its engines',
    path: 'src/store/index.ts',
    code: "export { createSqliteStore } from './sqlite/sqlite-store.js'\n",
    expected: [],
  },
  {
    name: 'a unit test naming both engines to compare their SQL',
    path: 'src/core/rules/things.test.ts',
    code: [
      "import { postgresDialect } from '../../store/postgres/postgres-dialect.js'",
      "import { sqliteDialect } from '../../store/sqlite/sqlite-dialect.js'",
      'export const both = [postgresDialect, sqliteDialect]',
      '',
    ].join('\n'),
    expected: [],
  },
]

describe('lint boundaries', () => {
  for (const c of cases) {
    it(`${c.expected.length > 0 ? 'fails' : 'passes'}: ${c.name}`, async () => {
      const errors = await boundaryErrors(c.path, c.code)
      expect(errors).toHaveLength(c.expected.length)
      c.expected.forEach((pattern, i) => expect(errors[i]).toMatch(pattern))
    })
  }

  it('passes for src/server.ts importing every feature through the list', async () => {
    const code = "export { builtInFeatures } from './features/index.js'\n"
    expect(await boundaryErrors('src/server.ts', code)).toEqual([])
  })
})
