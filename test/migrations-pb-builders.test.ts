/**
 * The `app.db()` query builders in a `pb_migrations` file: `insert`, `update`, `delete` (with
 * `rowsAffected()`), `select(...).from().where().orderBy().limit().offset().bind()` with
 * `all`/`one`, a missing row, and `upsert` (which PocketBase's SQLite builder refuses), on the
 * run's transaction. The same folder (test/pocketbase/migrations/builders/) applied by
 * PocketBase 0.40.4 kept what they answered in a `results` record
 * (test/pocketbase/migrations/builders.json, recorded by record-builders.ts); svcbase's run must
 * keep the same, on either engine. Its `down` deletes through the builder too.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyMigrations, revertMigrations } from '../src/features/hooks/pb/migrate/runner.js'
import { startServer, type TestServer } from './helpers/server.js'
import { copyFolder, HERE } from './pocketbase/migrations/folders.js'

const folder = join(mkdtempSync(join(tmpdir(), 'svcbase-mig-builders-')), 'm')
copyFolder('builders', folder)
afterAll(() => rmSync(join(folder, '..'), { recursive: true, force: true }))

const expected = JSON.parse(readFileSync(join(HERE, 'builders.json'), 'utf8')) as {
  results: Record<string, unknown>
}

describe('app.db() builders in a migration (the oracle applied it too)', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startServer()
  })
  afterAll(() => s.close())

  it('answers every builder call as PocketBase did', async () => {
    expect(await applyMigrations(s.server.app, folder)).toEqual(['1700000000_builders.js'])
    const got = await s.api('GET', '/api/collections/results/records', { token: s.suToken })
    expect(got.status).toBe(200)
    expect(got.body.items[0].data).toEqual(expected.results)
  })

  it('writes through the builders in down too', async () => {
    await revertMigrations(s.server.app, folder, 1)
    const got = await s.api('GET', '/api/collections/things/records?sort=name', {
      token: s.suToken,
    })
    expect(got.body.items.map((r: { name: string }) => r.name)).toEqual(['Abc', 'a_b'])
  })
})
