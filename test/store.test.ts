import Database from 'better-sqlite3'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { collectionToJSON } from '../src/core/collections/codec.js'
import { createApp } from '../src/core/create-app.js'
import { silentLogger } from '../src/core/logger.js'
import { internalRequest } from '../src/core/request-info.js'
import { createSqliteStore, type Store } from '../src/store/index.js'
import { sql } from '../src/store/sql.js'

const dirs: string[] = []
const apps: App[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-store-app-'))
  dirs.push(dir)
  return dir
}
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A store that records the lifecycle calls the app makes on it. */
function recording(inner: Store, calls: string[]): Store {
  return {
    dialect: inner.dialect,
    schema: inner.schema,
    get isOpen() {
      return inner.isOpen
    },
    open: async () => {
      calls.push('open')
      await inner.open()
    },
    migrate: async () => {
      calls.push('migrate')
      await inner.migrate()
    },
    database: (name) => inner.database(name),
    backup: (dir) => inner.backup(dir),
    checkSnapshot: (dir) => inner.checkSnapshot(dir),
    optimize: () => inner.optimize(),
    console: (request) => inner.console(request),
    close: async () => {
      calls.push('close')
      await inner.close()
    },
  }
}

/** An app on a store kept apart from `dataDir`, with one open collection. */
async function setup() {
  const dataDir = tempDir()
  const storeDir = join(tempDir(), 'db')
  const calls: string[] = []
  const store = recording(createSqliteStore({ dir: storeDir }), calls)
  const app = await createApp({ dataDir, store, logger: silentLogger })
  apps.push(app)
  const notes = await app.collections.create({
    name: 'notes',
    type: 'base',
    fields: [{ name: 'title', type: 'text' }],
    listRule: '',
    createRule: '',
  })
  await app.records.create(notes, { title: 'kept' }, internalRequest())
  return { app, store, calls, dataDir, storeDir }
}

describe('createApp({ store })', () => {
  it('keeps its data in the store it is given, which it opens, migrates and closes', async () => {
    const { app, store, calls, dataDir, storeDir } = await setup()
    expect(app.store).toBe(store)
    expect(calls).toEqual(['open', 'migrate'])
    expect(existsSync(join(storeDir, 'data.db'))).toBe(true)
    expect(existsSync(join(dataDir, 'data.db'))).toBe(false)
    expect(app.db).toBe(store.database('main'))
    expect(app.auxDb).toBe(store.database('auxiliary'))

    await app.terminate()
    expect(calls).toEqual(['open', 'migrate', 'close'])
    expect(store.isOpen).toBe(false)
    await app.bootstrap()
    expect(calls).toEqual(['open', 'migrate', 'close', 'open', 'migrate'])
    const page = await app.records.list(app.collections.get('notes'), {}, internalRequest())
    expect(page.items.map((r) => r.title)).toEqual(['kept'])
  })

  it('places a collection in the database its attribute names, not serialised', async () => {
    const { app, store } = await setup()
    const logs = app.collections.get('_logs')
    expect(logs.database).toBe('auxiliary')
    expect(app.dbFor(logs)).toBe(store.database('auxiliary'))
    expect(app.collections.get('notes').database).toBeUndefined()
    expect(app.dbFor(app.collections.get('notes'))).toBe(app.db)
    expect(Object.keys(collectionToJSON(logs))).not.toContain('database')

    // A `_logs` row stored before the attribute existed still finds its database.
    await app.db.run(sql`UPDATE _collections SET options = '{}' WHERE name = '_logs'`)
    await app.bootstrap()
    expect(app.collections.get('_logs').database).toBe('auxiliary')
    expect(app.dbFor(app.collections.get('_logs'))).toBe(app.auxDb)
  })

  it('backs up the app data through the store, readable on its own', async () => {
    const { app } = await setup()
    const target = join(tempDir(), 'backup')
    mkdirSync(target)
    const [mainFile, auxFile] = await app.store.backup(target)
    const read = (file: string, query: string) => {
      const db = new Database(file, { readonly: true, fileMustExist: true })
      try {
        return db.prepare(query).all()
      } finally {
        db.close()
      }
    }
    expect(read(mainFile!, 'SELECT title FROM notes')).toEqual([{ title: 'kept' }])
    expect(
      read(auxFile!, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
    ).toEqual([{ name: '_logs' }])
  })
})
