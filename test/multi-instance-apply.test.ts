/**
 * Two svcbase processes on one PostgreSQL schema (`SVC_TEST_PG_URL`; files on the test S3
 * server, `helpers/s3`, as several instances require): a settings or schema change answers only
 * once the other instance applied it, so the very next request there sees it; an instance that
 * does not confirm in time is named in a warning, the write answers anyway, and the instance
 * applies the change once it runs again.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, runCli, serve, stop, type Instance, type Place } from './helpers/pg-instances.js'
import { s3Settings } from './helpers/s3.js'
import { waitFor } from './helpers/webhook-receiver.js'

const url = process.env.SVC_TEST_PG_URL
if (!url) throw new Error('SVC_TEST_PG_URL is not set: this test needs the PostgreSQL test setup')
const place: Place = {
  url,
  schema: `svc_apply_${Math.random().toString(36).slice(2, 10)}`,
  root: mkdtempSync(join(tmpdir(), 'svcbase-apply-')),
}
const EMAIL = 'admin@example.com'
const PASSWORD = 'supersecret123'

let a: Instance
let b: Instance
let su = ''

beforeAll(async () => {
  mkdirSync(join(place.root, 'hooks'))
  expect(await runCli(place, ['superuser', 'create', EMAIL, PASSWORD])).toBe(0)
  a = await serve(place, 'a')
  const auth = await call(a, 'POST', '/api/collections/_superusers/auth-with-password', {
    identity: EMAIL,
    password: PASSWORD,
  })
  su = auth.body.token as string
  // Files on S3 before a second instance may start.
  expect((await call(a, 'PATCH', '/api/settings', { s3: s3Settings() }, su)).status).toBe(200)
  b = await serve(place, 'b')
}, 120_000)

afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map(stop))
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`DROP SCHEMA IF EXISTS "${place.schema}" CASCADE`)
  await admin.query(`DROP SCHEMA IF EXISTS "${place.schema}_aux" CASCADE`)
  await admin.end()
  rmSync(place.root, { recursive: true, force: true })
})

describe('a settings or schema change on one of two PostgreSQL instances', () => {
  it('is applied on the other before the write answers, every time, both ways', async () => {
    for (let i = 0; i < 20; i++) {
      // Even rounds write on A and read on B, odd rounds the other way round.
      const [w, r] = i % 2 === 0 ? [a, b] : [b, a]
      const name = `Round ${i}`
      const patched = await call(w, 'PATCH', '/api/settings', { meta: { appName: name } }, su)
      expect(patched.status).toBe(200)
      expect((await call(r, 'GET', '/api/settings', undefined, su)).body.meta.appName).toBe(name)

      const c = `round${i}`
      const made = await call(
        w,
        'POST',
        '/api/collections',
        { name: c, type: 'base', createRule: '', fields: [{ name: 'n', type: 'number' }] },
        su,
      )
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      expect((await call(r, 'POST', `/api/collections/${c}/records`, { n: 1 })).status).toBe(200)

      const fields = [...made.body.fields, { name: 'extra', type: 'text' }]
      expect((await call(w, 'PATCH', `/api/collections/${c}`, { fields }, su)).status).toBe(200)
      const extra = await call(r, 'POST', `/api/collections/${c}/records`, { extra: 'seen' })
      expect(extra.status).toBe(200)
      expect(extra.body.extra).toBe('seen')

      expect((await call(w, 'DELETE', `/api/collections/${c}`, undefined, su)).status).toBe(204)
      expect((await call(r, 'GET', `/api/collections/${c}/records`)).status).toBe(404)

      const imported = await call(
        w,
        'PUT',
        '/api/collections/import',
        { collections: [{ name: `imported${i}`, type: 'base', createRule: '' }] },
        su,
      )
      expect(imported.status).toBe(204)
      expect((await call(r, 'POST', `/api/collections/imported${i}/records`, {})).status).toBe(200)
    }
  }, 120_000)

  it('answers anyway when the other does not confirm, names it, and the other applies it later', async () => {
    b.child.kill('SIGSTOP')
    let patched: { status: number }
    try {
      patched = await call(a, 'PATCH', '/api/settings', { meta: { appName: 'While B slept' } }, su)
    } finally {
      b.child.kill('SIGCONT')
    }
    expect(patched.status).toBe(200)
    expect(a.output()).toMatch(
      new RegExp(`answered before these instances applied it.*pid ${String(b.child.pid)} \\(`),
    )
    // B handles the message it received while stopped.
    await waitFor(
      async () =>
        (await call(b, 'GET', '/api/settings', undefined, su)).body.meta.appName ===
        'While B slept',
    )
    // Both confirm again: the next change is on B for the very next request.
    const again = await call(a, 'PATCH', '/api/settings', { meta: { appName: 'Awake' } }, su)
    expect(again.status).toBe(200)
    expect((await call(b, 'GET', '/api/settings', undefined, su)).body.meta.appName).toBe('Awake')
  }, 60_000)
})
