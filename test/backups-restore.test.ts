/**
 * Restore through a real server (SPEC §4.9 rule 3): archives refused before the 204 with the
 * running data untouched (corrupt, truncated, zip-slip, symlink, zip bombs by declared and by
 * actual size, too many entries, foreign files, a foreign SQLite database), then a good archive:
 * 204, the connections dropped (an SSE client included), the same address answering with the
 * snapshot's data and files, and one restore at a time.
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backupsFeature } from '../src/features/backups/index.js'
import { builtInFeatures } from '../src/features/index.js'
import {
  download,
  makeZip,
  seedPosts,
  alterBackup,
  checkDbFile,
  dbFiles,
  onPostgres,
  titles,
  unzipTo,
  until,
  upload,
} from './helpers/backups.js'
import { startServer, type TestServer } from './helpers/server.js'

/** The archive limits of this suite's server: small, so bombs stay cheap. */
const MAX_BYTES = 4 * 1024 * 1024
const MAX_ENTRIES = 40

/** Sets the 32-bit little-endian field at `offset` of every header with signature `sig`. */
function patchHeaders(zip: Buffer, sig: number, offset: number, value: number): Buffer {
  const out = Buffer.from(zip)
  for (let at = 0; at <= out.length - 4; at++) {
    if (out.readUInt32LE(at) === sig) out.writeUInt32LE(value, at + offset)
  }
  return out
}

describe('restore', () => {
  let t: TestServer
  let good: Buffer
  let fileName: string
  let postsId: string

  const restore = (key: string) =>
    t.api('POST', `/api/backups/${key}/restore`, { token: t.suToken })

  /** Uploads `zip` as `name` straight into the backups folder (bypassing upload's checks). */
  const place = (name: string, zip: Buffer) => writeFileSync(join(t.dir, 'backups', name), zip)

  /** Restores `name` expecting a 400 whose reason matches, with the live data unchanged. */
  async function refused(name: string, zip: Buffer, reason: RegExp): Promise<void> {
    place(name, zip)
    const app = t.server.app
    const before = await titles(t)
    const res = await restore(name)
    expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(400)
    expect(res.body.message).toMatch(/^The backup cannot be restored, nothing was changed: /)
    expect(res.body.message).toMatch(reason)
    expect(t.server.app).toBe(app) // no restart
    expect(await titles(t)).toEqual(before)
    expect(readdirSync(join(t.dir, '.svc_tmp'))).toEqual([])
    expect((await t.api('GET', '/api/health', { token: t.suToken })).body.data.canBackup).toBe(true)
  }

  beforeAll(async () => {
    const features = builtInFeatures().map((f) =>
      f.name === 'backups' ? backupsFeature({ maxBytes: MAX_BYTES, maxEntries: MAX_ENTRIES }) : f,
    )
    t = await startServer({ features })
    await seedPosts(t, 5)
    const form = new FormData()
    form.append('title', 'with file')
    form.append('doc', new Blob(['kept in the snapshot']), 'note.txt')
    const rec = await t.api('POST', '/api/collections/posts/records', { raw: form })
    expect(rec.status).toBe(200)
    fileName = rec.body.doc as string
    postsId = rec.body.collectionId as string
    expect(
      (await t.api('POST', '/api/backups', { token: t.suToken, body: { name: 'good.zip' } }))
        .status,
    ).toBe(204)
    good = await download(t, 'good.zip')
    // The live data moves on after the backup.
    for (const id of (
      await t.api('GET', '/api/collections/posts/records?filter=title%3D%22p1%22', {
        token: t.suToken,
      })
    ).body.items.map((r: any) => r.id))
      await t.api('DELETE', `/api/collections/posts/records/${id}`, { token: t.suToken })
    await t.api('POST', '/api/collections/posts/records', { body: { title: 'after backup' } })
  })
  afterAll(() => t.close())

  it('answers 400 for an unknown key or one that is not a plain file name', async () => {
    const missing = await restore('nope.zip')
    expect(missing.status).toBe(400)
    expect(missing.body.message).toBe('Missing or invalid backup file.')
    expect((await restore('..%2Fdata.db')).status).toBe(400)
  })

  it('refuses a truncated archive', async () => {
    await refused('truncated.zip', good.subarray(0, Math.floor(good.length / 2)), /cut short/)
  })

  it('refuses a corrupt archive (bytes flipped inside data.db)', async () => {
    const bad = Buffer.from(good)
    // The first entry (data.db) starts at 0: damage its deflated bytes well past its header.
    for (let i = 200; i < 260; i++) bad[i] = bad[i]! ^ 0xff
    await refused('corrupt.zip', bad, /damaged/)
  })

  it('refuses damage the ZIP layer misses or catches late: a CRC-32 mismatch, a broken database page', async () => {
    const out = join(t.dir, '.svc_tmp', 'unpacked')
    unzipTo(join(t.dir, '.svc_tmp'), good, out)
    const db = readFileSync(join(out, dbFiles.main))
    rmSync(out, { recursive: true, force: true })
    rmSync(join(t.dir, '.svc_tmp', 'extract.zip'))
    // Stored (not deflated) with one byte changed after the CRC was computed.
    const stored = await makeZip([{ name: dbFiles.main, data: db, compress: false }])
    const sample = onPostgres ? db.subarray(64, 128) : db.subarray(8192, 8192 + 64)
    const at = stored.indexOf(sample)
    expect(at).toBeGreaterThan(0)
    stored[at + 10] = stored[at + 10]! ^ 0xff
    await refused('crc.zip', stored, /CRC-32 mismatch/)
    if (onPostgres) {
      // A well-formed archive of a dump whose header is damaged: pg_restore cannot read it.
      const broken = Buffer.from(db)
      broken.fill(0x5a, 5, 40)
      await refused(
        'broken-pages.zip',
        await makeZip([{ name: dbFiles.main, data: broken }]),
        /data\.pgdump: it is not a readable pg_dump archive/,
      )
      return
    }
    // A well-formed archive of a database whose pages are damaged: PRAGMA integrity_check.
    const broken = Buffer.from(db)
    const pageSize = broken.readUInt16BE(16)
    for (let p = 2; p * pageSize < broken.length; p += 3)
      broken.fill(0x5a, p * pageSize + 16, p * pageSize + 200)
    await refused(
      'broken-pages.zip',
      await makeZip([{ name: 'data.db', data: broken }]),
      /data\.db: .*(integrity check failed|malformed)/,
    )
  })

  it('refuses zip-slip: .., absolute paths, backslashes and symbolic links', async () => {
    await refused('slip1.zip', await makeZip([{ name: '../../evil.txt', data: 'x' }]), /leads out/)
    await refused(
      'slip2.zip',
      await makeZip([{ name: 'storage/../../evil.txt', data: 'x' }]),
      /leads out/,
    )
    await refused('slip3.zip', await makeZip([{ name: '/etc/evil.txt', data: 'x' }]), /absolute/)
    await refused('slip4.zip', await makeZip([{ name: 'storage\\..\\x', data: 'x' }]), /backslash/)
    await refused(
      'slip5.zip',
      await makeZip([
        { name: 'data.db', data: 'x' },
        { name: 'storage/link', data: '/etc/passwd', mode: 0o120777 },
      ]),
      /symbolic link/,
    )
    expect(existsSync(join(t.dir, '..', 'evil.txt'))).toBe(false)
  })

  it('refuses zip bombs: declared size, actual size over the declared one, entry count', async () => {
    const zeros = Buffer.alloc(MAX_BYTES + 1024)
    // Honest headers over the limit: refused from the central directory, nothing inflated.
    await refused(
      'bomb-declared.zip',
      await makeZip([{ name: 'data.db', data: zeros }]),
      /would unpack to more than 4194304 bytes/,
    )
    // Lying headers (they declare 1000 bytes): refused while inflating.
    const lying = patchHeaders(
      patchHeaders(await makeZip([{ name: 'data.db', data: zeros }]), 0x04034b50, 22, 1000),
      0x02014b50,
      24,
      1000,
    )
    await refused('bomb-actual.zip', lying, /damaged|larger than it declares/)
    const many = Array.from({ length: MAX_ENTRIES + 1 }, (_, i) => ({
      name: `storage/c/r/f${i}.txt`,
      data: 'x',
    }))
    await refused(
      'bomb-entries.zip',
      await makeZip([{ name: 'data.db', data: 'x' }, ...many]),
      /more than 40 entries/,
    )
  })

  it("refuses foreign archives: unrelated files, another application's SQLite database", async () => {
    await refused(
      'foreign-files.zip',
      await makeZip([
        { name: 'photos/cat.jpg', data: 'jpeg' },
        { name: 'notes.txt', data: 'hello' },
      ]),
      /unexpected entry "photos\/cat.jpg"/,
    )
    await refused(
      'foreign-root.zip',
      await makeZip([{ name: 'notes.txt', data: 'hello' }]),
      /unexpected file "notes.txt"/,
    )
    const foreignDb = join(t.dir, '.svc_tmp', 'foreign.db')
    const db = new Database(foreignDb)
    db.exec(
      "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'a')",
    )
    db.close()
    const bytes = readFileSync(foreignDb)
    rmSync(foreignDb)
    await refused(
      'foreign-db.zip',
      await makeZip([{ name: 'data.db', data: bytes }]),
      onPostgres
        ? /it was taken on SQLite and this server runs on PostgreSQL/
        : /data\.db: it is not a svcbase database \(no _collections, _params, _superusers table\)/,
    )
    // An archive of the other engine is refused naming both.
    const other = onPostgres ? 'data.db' : 'data.pgdump'
    await refused(
      'other-engine.zip',
      await makeZip([{ name: other, data: 'x' }]),
      onPostgres
        ? /it was taken on SQLite and this server runs on PostgreSQL; a backup restores only on the database engine it was taken on\.$/
        : /it was taken on PostgreSQL and this server runs on SQLite; a backup restores only on the database engine it was taken on\.$/,
    )
    await refused(
      'not-a-database.zip',
      await makeZip([{ name: dbFiles.main, data: 'definitely not a database file at all' }]),
      new RegExp(`${dbFiles.main.replace('.', '\\.')}: `),
    )
  })

  it("restores a good archive: 204, SSE dropped, same address, the snapshot's data and files", async () => {
    expect(await titles(t)).toContain('after backup')
    const oldApp = t.server.app
    // An open realtime connection.
    const sse = await fetch(`${t.url}/api/realtime`)
    expect(sse.status).toBe(200)
    const reader = sse.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toContain('SVC_CONNECT')
    const ended = (async () => {
      for (;;) {
        const { done } = await reader.read().catch(() => ({ done: true }))
        if (done) return true
      }
    })()

    const started = Date.now()
    const res = await restore('good.zip')
    expect(res.status).toBe(204)
    expect(await ended).toBe(true) // the SSE stream was closed by the restart
    await until(() => t.server.app !== oldApp && t.server.app.isBootstrapped)
    const took = Date.now() - started
    expect(took).toBeLessThan(15_000)
    const health = await t.api('GET', '/api/health')
    expect(health.status).toBe(200)
    expect(await titles(t)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'with file'].sort())
    // The snapshot's file is served again.
    const rec = (
      await t.api('GET', '/api/collections/posts/records?filter=title%3D%22with%20file%22', {
        token: t.suToken,
      })
    ).body.items[0]
    const file = await fetch(`${t.url}/api/files/${postsId}/${rec.id}/${fileName}`)
    expect(await file.text()).toBe('kept in the snapshot')
    // The backups stayed, the temporary work is gone, old content removed.
    const keys = (await t.api('GET', '/api/backups', { token: t.suToken })).body.map(
      (b: any) => b.key,
    )
    expect(keys).toContain('good.zip')
    await until(() => readdirSync(join(t.dir, '.svc_tmp')).length === 0)
  })

  it('puts the live data back when the restored data cannot start (after the 204)', async () => {
    const dir = join(t.dir, '.svc_tmp')
    const out = join(dir, 'unstartable')
    unzipTo(dir, good, out)
    rmSync(join(dir, 'extract.zip'))
    // Intact for the engine and holding svcbase's tables, but a collection the app cannot load.
    // (A JSON column cannot hold broken JSON: the column becomes text first.)
    const retype = onPostgres ? 'ALTER TABLE _collections ALTER COLUMN fields TYPE TEXT; ' : ''
    alterBackup(
      join(out, dbFiles.main),
      `${retype}UPDATE _collections SET fields = '{{' WHERE name = 'posts'`,
    )
    expect(checkDbFile(join(out, dbFiles.main))).toBe('ok')
    const zip = await makeZip([
      { name: dbFiles.main, data: readFileSync(join(out, dbFiles.main)) },
      { name: dbFiles.auxiliary, data: readFileSync(join(out, dbFiles.auxiliary)) },
    ])
    rmSync(out, { recursive: true, force: true })
    place('unstartable.zip', zip)
    const before = await titles(t)
    const oldApp = t.server.app
    expect((await restore('unstartable.zip')).status).toBe(204)
    await until(() => t.server.app !== oldApp && t.server.app.isBootstrapped)
    expect(await titles(t)).toEqual(before)
    await until(() => readdirSync(dir).length === 0)
    const kept = onPostgres ? [] : [dbFiles.auxiliary, dbFiles.main]
    expect(readdirSync(t.dir).sort()).toEqual(
      expect.arrayContaining(['.svc_tmp', 'backups', 'storage', ...kept]),
    )
  })

  it('runs one restore at a time', async () => {
    const oldApp = t.server.app
    const [a, b] = await Promise.all([restore('good.zip'), restore('good.zip')])
    expect([a.status, b.status].sort()).toEqual([204, 400])
    const refusedOne = a.status === 400 ? a : b
    expect(refusedOne.body.message).toBe(
      'Try again later - another backup/restore process has already been started.',
    )
    await until(() => t.server.app !== oldApp && t.server.app.isBootstrapped)
    expect(await titles(t)).toHaveLength(6)
  })

  it('keeps an uploaded archive restorable (upload, then restore it)', async () => {
    expect((await upload(t, 'uploaded.zip', good)).status).toBe(204)
    await t.api('POST', '/api/collections/posts/records', { body: { title: 'doomed' } })
    const oldApp = t.server.app
    expect((await restore('uploaded.zip')).status).toBe(204)
    await until(() => t.server.app !== oldApp && t.server.app.isBootstrapped)
    expect(await titles(t)).not.toContain('doomed')
  })
})
