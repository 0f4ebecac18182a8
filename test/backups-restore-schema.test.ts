/**
 * A PostgreSQL restore of another app's backup whose schema still exists in the database: the
 * restore would have to rename the live schema aside and put the dump under its own name, which
 * is taken, so it is refused with a 400 before the 204 (the store's snapshot check knows the
 * database), the running data untouched. Runs on PostgreSQL in every pass (`SVC_TEST_PG_URL`).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { download, seedPosts, titles } from './helpers/backups.js'
import { startServer, type TestServer } from './helpers/server.js'

describe('restore of another schema on PostgreSQL', () => {
  let a: TestServer
  let b: TestServer
  beforeAll(async () => {
    const url = process.env.SVC_TEST_PG_URL
    if (!url) throw new Error('SVC_TEST_PG_URL is not set: the global setup starts PostgreSQL')
    // NB: this file's own process (pool forks): each app in the schema of its data folder.
    process.env.SVC_DATABASE_URL = url
    process.env.SVC_DATABASE_SCHEMA = '@dir'
    a = await startServer()
    b = await startServer()
    await seedPosts(a, 2)
    await seedPosts(b, 3)
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
  })

  it("answers 400 before the 204 when the backup's schema exists in the database", async () => {
    const made = await b.api('POST', '/api/backups', { token: b.suToken, body: { name: 'b.zip' } })
    expect(made.status).toBe(204)
    mkdirSync(join(a.dir, 'backups'), { recursive: true })
    writeFileSync(join(a.dir, 'backups', 'b.zip'), await download(b, 'b.zip'))
    const app = a.server.app
    const res = await a.api('POST', '/api/backups/b.zip/restore', { token: a.suToken })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.message).toMatch(
      /^The backup cannot be restored, nothing was changed: .*the backup's schema svc_[0-9a-f]+ exists already in the database: drop or rename it first/,
    )
    expect(a.server.app).toBe(app) // no restart
    expect(await titles(a)).toEqual(['p1', 'p2'])
    expect(await titles(b)).toEqual(['p1', 'p2', 'p3'])
    expect(readdirSync(join(a.dir, '.svc_tmp'))).toEqual([])
    // Its own backups still restore.
    const own = await a.api('POST', '/api/backups', { token: a.suToken, body: { name: 'a.zip' } })
    expect(own.status).toBe(204)
    expect((await a.api('POST', '/api/backups/a.zip/restore', { token: a.suToken })).status).toBe(
      204,
    )
  })
})
