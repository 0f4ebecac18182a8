/**
 * `serve --automigrate`: the migration files written for collections changed through the API,
 * against the ones PocketBase 0.40.4 wrote for the same calls (test/pocketbase/migrations/
 * expected.json, recorded by test/pocketbase/migrations/record.ts). Files are compared by what
 * they do: each one runs in a sandbox that logs its calls (the collections' JSON, field ids and
 * positions, the props unmarshalled), with svcbase's own `created`/`updated` autodate fields (every
 * record has both, docs/collections.md) left out. A generated file also applies on svcbase.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bindAutomigrate } from '../src/features/hooks/pb/migrate/automigrate.js'
import { applyMigrations, revertMigrations } from '../src/features/hooks/pb/migrate/runner.js'
import { sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'
import {
  AUTOMIGRATE_STEPS,
  HERE,
  withoutTime,
  type GeneratedFile,
} from './pocketbase/migrations/folders.js'

const expected = JSON.parse(readFileSync(join(HERE, 'expected.json'), 'utf8')) as {
  automigrate: { files: GeneratedFile[]; migrations: string[] }
}

type Json = Record<string, unknown>

/** svcbase's own timestamps (absent from PocketBase's collections made without them). */
const isOwnTimestamp = (f: Json): boolean =>
  f.type === 'autodate' && (f.name === 'created' || f.name === 'updated')

/** A collection's JSON as compared: svcbase's own timestamps left out. */
function comparable(json: Json): Json {
  const out = { ...json }
  if (Array.isArray(out.fields))
    out.fields = (out.fields as Json[]).filter((f) => !isOwnTimestamp(f))
  return out
}

/** The calls a generated file's `up` and `down` make, run in a logging sandbox. */
function trace(text: string): { up: unknown[]; down: unknown[] } {
  const fns: { up?: (app: unknown) => unknown; down?: (app: unknown) => unknown } = {}
  const log: unknown[] = []
  const collectionOf = (ref: unknown) => ({
    ref,
    fields: {
      removeById: (id: unknown) => log.push(['removeById', id]),
      addAt: (i: unknown, f: { json: Json }) => log.push(['addAt', i, f.json]),
    },
  })
  const context = vm.createContext({
    migrate: (up: (app: unknown) => unknown, down: (app: unknown) => unknown) =>
      Object.assign(fns, { up, down }),
    Collection: function Collection(json: Json) {
      log.push(['new Collection', comparable(json)])
      return collectionOf('new')
    },
    Field: function Field(json: Json) {
      return { json }
    },
    unmarshal: (data: Json) => log.push(['unmarshal', data]),
  })
  vm.runInContext(text, context)
  const app = {
    findCollectionByNameOrId: (id: unknown) => {
      log.push(['find', id])
      return collectionOf(id)
    },
    save: () => log.push(['save']),
    delete: () => log.push(['delete']),
  }
  fns.up!(app)
  const up = log.splice(0)
  fns.down!(app)
  // svcbase's timestamps come after the fields PocketBase has: their addAt steps go.
  const drop = (steps: unknown[]) =>
    steps.filter((s) => !(Array.isArray(s) && s[0] === 'addAt' && isOwnTimestamp(s[2] as Json)))
  return { up: drop(up), down: drop(log.splice(0)) }
}

describe('--automigrate: collections changed through the API write migration files', () => {
  let s: TestServer
  let dir: string
  beforeAll(async () => {
    s = await startServer()
    dir = mkdtempSync(join(tmpdir(), 'svcbase-automigrate-'))
    bindAutomigrate(s.server.app, dir)
    for (const step of AUTOMIGRATE_STEPS) {
      const res = await s.api(step.method, step.path, { body: step.body, token: s.suToken })
      expect(res.status, `${step.method} ${step.path}`).toBeLessThan(300)
    }
  })
  afterAll(async () => {
    await s.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const files = () => readdirSync(dir).sort()

  it('names them as PocketBase: <unix seconds>_<created|updated|deleted>_<name before>.js', () => {
    expect(files().map(withoutTime)).toEqual(expected.automigrate.files.map((f) => f.name))
    for (const f of files()) expect(f).toMatch(/^\d{10}_/)
  })

  it('writes what PocketBase writes, up and down', () => {
    const ours = files().map((f) => readFileSync(join(dir, f), 'utf8'))
    expected.automigrate.files.forEach((theirs, i) => {
      expect(ours[i]!.split('\n')[0]).toBe(theirs.text.split('\n')[0])
      expect(trace(ours[i]!), theirs.name).toEqual(trace(theirs.text))
    })
  })

  it('records them as applied', async () => {
    const rows = await s.server.app.db.all<{ file: string }>(
      sql`SELECT file FROM _migrations ORDER BY file`,
    )
    const mine = rows.map((r) => r.file).filter((f) => !f.endsWith('.go'))
    expect(mine).toEqual(files())
    expect(mine.map(withoutTime)).toEqual(expected.automigrate.migrations)
  })

  it('writes files that apply and revert on another app', async () => {
    const other = await startServer()
    try {
      const applied = await applyMigrations(other.server.app, dir)
      expect(applied).toEqual(files())
      const names = (app: TestServer) =>
        app.server.app.collections
          .all()
          .filter((c) => !c.system)
          .map((c) => `${c.id}:${c.name}:${c.listRule}:${c.fields.map((f) => f.name).join(',')}`)
          .sort()
      expect(names(other)).toEqual(names(s))
      // Back to the start, step by step through every down.
      await revertMigrations(other.server.app, dir, -1)
      expect(other.server.app.collections.find('members')).toBeUndefined()
      expect(other.server.app.collections.find('Work')).toBeUndefined()
    } finally {
      await other.close()
    }
  })
})
