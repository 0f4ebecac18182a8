/**
 * Files with several instances on one PostgreSQL schema (`SVC_TEST_PG_URL`): local storage is
 * refused once another instance runs (start refused, S3 not turned off), S3 on the test server
 * (`helpers/s3`) lets a second instance start.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manageSuperuser } from '../src/core/auth/superusers.js'
import { silentLogger } from '../src/core/logger.js'
import { createServer, type Server } from '../src/server.js'
import { s3Settings } from './helpers/s3.js'

const url = process.env.SVC_TEST_PG_URL
if (!url) throw new Error('SVC_TEST_PG_URL is not set: this test needs the PostgreSQL test setup')
const schema = `svc_st_${Math.random().toString(36).slice(2, 10)}`
const dirs: string[] = []

async function start(shareDir?: string): Promise<Server> {
  const dir = shareDir ?? mkdtempSync(join(tmpdir(), 'svcbase-st-instances-'))
  if (!shareDir) dirs.push(dir)
  return createServer(
    { dataDir: dir, logger: silentLogger, databaseUrl: url, databaseSchema: schema },
    {},
  )
}

let a: Server
let base = ''
let token = ''

async function patchSettings(body: unknown, auth = token) {
  const res = await fetch(`${base}/api/settings`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

beforeAll(async () => {
  a = await start()
  base = await a.listen({ host: '127.0.0.1', port: 0 })
  await manageSuperuser(a.app, 'create', 'admin@example.com', 'supersecret123')
  const login = await fetch(`${base}/api/collections/_superusers/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: 'admin@example.com', password: 'supersecret123' }),
  })
  token = ((await login.json()) as { token: string }).token
})

afterAll(async () => {
  await a?.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await admin.end()
})

describe('files with several instances on one PostgreSQL schema', () => {
  it('refuses a second instance while files are on local disk', async () => {
    expect(a.app.settings.get().s3.enabled).toBe(false)
    await expect(start()).rejects.toThrow(
      "Several instances share this database (2 running): files must be on S3, not on this instance's local disk.",
    )
    // The refused instance is gone: A is alone again.
    expect(await a.app.cluster.liveInstances()).toBe(1)
  })

  it('lets instances sharing one data folder on one machine keep local files', async () => {
    // As the workers of one `serve --workers`: one place, whatever the number of processes.
    const sibling = await start(a.app.config.dataDir)
    try {
      expect(await a.app.cluster.liveInstances()).toBe(2)
      expect(await a.app.cluster.livePlaces!()).toBe(1)
      expect((await patchSettings({ meta: { appName: 'siblings' } })).status).toBe(200)
    } finally {
      await sibling.close()
    }
  })

  it('lets it start once S3 is on, and then S3 cannot be turned off', async () => {
    const on = await patchSettings({ s3: s3Settings() })
    expect(on.status, JSON.stringify(on.body)).toBe(200)
    const b = await start()
    try {
      expect(await a.app.cluster.liveInstances()).toBe(2)
      const off = await patchSettings({ s3: { enabled: false } })
      expect(off.status).toBe(400)
      expect(off.body.message).toBe(
        'Several instances share this database (2 running): files must stay on S3, so s3.enabled cannot be turned off. Stop the other instances first.',
      )
      expect(a.app.settings.get().s3.enabled).toBe(true)
      // Someone who may not change settings gets the route's own answer.
      expect((await patchSettings({ s3: { enabled: false } }, '')).status).toBe(401)
      // Other changes still go through.
      expect((await patchSettings({ meta: { appName: 'two' } })).status).toBe(200)
    } finally {
      await b.close()
    }
    // Alone again: S3 may be turned off.
    expect(await a.app.cluster.liveInstances()).toBe(1)
    expect((await patchSettings({ s3: { enabled: false } })).status).toBe(200)
  })
})
