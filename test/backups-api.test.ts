/**
 * The backups API through a real server (SPEC §4.9): superuser guards, list, create with name
 * checks, download with a superuser file token (no bearer), archives opened by independent
 * readers (Debian's `unzip -t`, the `sqlite3` CLI or `pg_restore` on the PostgreSQL pass), upload, delete, storage-info, health's
 * `canBackup`, one backup at a time, and a backup taken while writers keep writing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  checkDbFile,
  dbFiles,
  download,
  dropScratchDatabases,
  fileToken,
  makeZip,
  onPostgres,
  queryBackup,
  seedPosts,
  unzipTest,
  unzipTo,
  upload,
} from './helpers/backups.js'
import { startServer, type TestServer } from './helpers/server.js'

describe('backups API', () => {
  let t: TestServer
  let userToken: string
  let work: string
  let fileName: string

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'svcbase-backups-api-'))
    t = await startServer()
    await seedPosts(t, 20)
    // One uploaded file, so the archive carries the local storage tree.
    const form = new FormData()
    form.append('title', 'with file')
    form.append('doc', new Blob(['hello from storage']), 'hello.txt')
    const rec = await t.api('POST', '/api/collections/posts/records', { raw: form })
    expect(rec.status).toBe(200)
    fileName = rec.body.doc as string
    await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    userToken = login.body.token as string
  })
  afterAll(async () => {
    await t.close()
    if (onPostgres) dropScratchDatabases()
    rmSync(work, { recursive: true, force: true })
  })

  it('is for superusers only: 401 without a token, 403 for a user', async () => {
    const zip = await makeZip([{ name: 'data.db', data: 'x' }])
    const calls: [string, string][] = [
      ['GET', '/api/backups'],
      ['POST', '/api/backups'],
      ['GET', '/api/backups/storage-info'],
      ['DELETE', '/api/backups/x.zip'],
      ['POST', '/api/backups/x.zip/restore'],
    ]
    for (const [method, path] of calls) {
      expect((await t.api(method, path, { token: null })).status, `${method} ${path}`).toBe(401)
      expect((await t.api(method, path, { token: userToken })).status, `${method} ${path}`).toBe(
        403,
      )
    }
    expect((await upload(t, 'x.zip', zip, '')).status).toBe(401)
    expect((await upload(t, 'x.zip', zip, userToken)).status).toBe(403)
    expect((await t.api('GET', '/api/backups', { token: t.suToken })).body).toEqual([])
  })

  it('creates backups under the default name and a given one, lists them newest first', async () => {
    const first = await t.api('POST', '/api/backups', { token: t.suToken })
    expect(first.status).toBe(204)
    await new Promise((r) => setTimeout(r, 20))
    const named = await t.api('POST', '/api/backups', {
      token: t.suToken,
      body: { name: 'my_backup-1.zip' },
    })
    expect(named.status).toBe(204)
    const list = await t.api('GET', '/api/backups', { token: t.suToken })
    expect(list.status).toBe(200)
    expect(list.body).toHaveLength(2)
    expect(list.body[0].key).toBe('my_backup-1.zip')
    expect(list.body[1].key).toMatch(/^svc_backup_\d{14}\.zip$/)
    for (const item of list.body) {
      expect(Object.keys(item).sort()).toEqual(['key', 'modified', 'size'])
      expect(item.size).toBeGreaterThan(1000)
      // PocketBase's datetime format, as every other date in the API
      expect(item.modified).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/)
    }
    // Stored in <dataDir>/backups/, nothing left in the temporary folder.
    expect(readdirSync(join(t.dir, 'backups')).sort()).toEqual(
      list.body.map((b: any) => b.key).sort(),
    )
    expect(readdirSync(join(t.dir, '.svc_tmp'))).toEqual([])
  })

  it('refuses names that are not plain lowercase .zip file names, and names taken', async () => {
    const bad = ['../evil.zip', 'a/b.zip', 'UPPER.zip', 'x.tar', 'x.zip.exe', '.zip']
    // As PocketBase: field errors at data.name, the length checked before the format.
    for (const name of bad) {
      const res = await t.api('POST', '/api/backups', { token: t.suToken, body: { name } })
      expect(res.status, String(name)).toBe(400)
      expect(res.body.message).toBe('An error occurred while validating the submitted data.')
      expect(res.body.data.name.code).toBe('validation_match_invalid')
    }
    const long = await t.api('POST', '/api/backups', {
      token: t.suToken,
      body: { name: `${'a'.repeat(147)}.zip` },
    })
    expect(long.body.data.name).toMatchObject({
      code: 'validation_length_out_of_range',
      params: { min: 1, max: 150 },
    })
    const number = await t.api('POST', '/api/backups', { token: t.suToken, body: { name: 42 } })
    expect(number.status).toBe(400)
    expect(number.body.message).toBe('An error occurred while loading the submitted data.')
    const taken = await t.api('POST', '/api/backups', {
      token: t.suToken,
      body: { name: 'my_backup-1.zip' },
    })
    expect(taken.status).toBe(400)
    expect(taken.body.message).toBe('An error occurred while validating the submitted data.')
    expect(taken.body.data.name.code).toBe('validation_backup_name_exists')
  })

  it('downloads with a superuser file token only: no token or a bearer alone 403, as PocketBase', async () => {
    const url = `${t.url}/api/backups/my_backup-1.zip`
    expect((await fetch(url)).status).toBe(403)
    expect((await fetch(url, { headers: { authorization: `Bearer ${t.suToken}` } })).status).toBe(
      403,
    )
    // An auth token is not a file token; a user's file token is not a superuser's.
    expect((await fetch(`${url}?token=${t.suToken}`)).status).toBe(403)
    const userFile = await fileToken(t, userToken)
    expect((await fetch(`${url}?token=${userFile}`)).status).toBe(403)
    expect((await fetch(`${url}?token=garbage`)).status).toBe(403)
    const token = await fileToken(t)
    const missing = await fetch(`${t.url}/api/backups/nope.zip?token=${token}`)
    expect(missing.status).toBe(404)
    const res = await fetch(`${url}?token=${token}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/zip')
    expect(res.headers.get('content-disposition')).toContain(
      'attachment; filename="my_backup-1.zip"',
    )
    const whole = Buffer.from(await res.arrayBuffer())
    const part = await fetch(`${url}?token=${token}`, { headers: { range: 'bytes=10-29' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 10-29/${whole.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(10, 30))).toBe(true)
    const beyond = await fetch(`${url}?token=${token}`, {
      headers: { range: `bytes=${whole.length}-` },
    })
    expect(beyond.status).toBe(416)
  })

  it('keeps a download to the superuser IP allow-list', async () => {
    const token = await fileToken(t)
    const set = (superuserIPs: string[]) =>
      t.api('PATCH', '/api/settings', { token: t.suToken, body: { superuserIPs } })
    expect((await set(['127.0.0.1'])).status).toBe(200)
    try {
      const path = `/api/backups/my_backup-1.zip?token=${token}`
      expect((await t.from('10.9.8.7', 'GET', path)).status).toBe(403)
      expect((await t.from('127.0.0.1', 'GET', path)).status).toBe(200)
    } finally {
      expect((await set([])).status).toBe(200)
    }
  })

  it('writes an archive that unzip -t and the engine tools accept, with the rows and files', async () => {
    const data = await download(t, 'my_backup-1.zip')
    const tested = unzipTest(work, data)
    expect(tested).toContain('No errors detected')
    expect(tested).toMatch(new RegExp(`testing: ${dbFiles.main.replace('.', '\\.')}\\s+OK`))
    expect(tested).toMatch(new RegExp(`testing: ${dbFiles.auxiliary.replace('.', '\\.')}\\s+OK`))
    const out = join(work, 'x')
    unzipTo(work, data, out)
    const main = join(out, dbFiles.main)
    expect(checkDbFile(main)).toBe('ok')
    expect(checkDbFile(join(out, dbFiles.auxiliary))).toBe('ok')
    expect(queryBackup(main, 'SELECT COUNT(*) FROM posts')).toBe('21')
    expect(queryBackup(main, "SELECT title FROM posts WHERE title = 'p7'")).toBe('p7')
    const posts = queryBackup(main, "SELECT id FROM _collections WHERE name = 'posts'")
    const rec = queryBackup(main, "SELECT id FROM posts WHERE title = 'with file'")
    expect(readFileSync(join(out, 'storage', posts, rec, fileName), 'utf8')).toBe(
      'hello from storage',
    )
    // Neither the backups folder nor temporary work goes into an archive.
    expect(existsSync(join(out, 'backups'))).toBe(false)
    expect(existsSync(join(out, '.svc_tmp'))).toBe(false)
  })

  it('uploads an archive under its file name after checking it, refusing the rest', async () => {
    const data = await download(t, 'my_backup-1.zip')
    const ok = await upload(t, 'uploaded_copy.zip', data)
    expect(ok.status, JSON.stringify(ok.body)).toBe(204)
    const list = await t.api('GET', '/api/backups', { token: t.suToken })
    const item = list.body.find((b: any) => b.key === 'uploaded_copy.zip')
    expect(item.size).toBe(data.length)
    expect((await download(t, 'uploaded_copy.zip')).equals(data)).toBe(true)

    const dup = await upload(t, 'uploaded_copy.zip', data)
    expect(dup.status).toBe(400)
    expect(dup.body.data.file.code).toBe('validation_backup_name_exists')
    const badName = await upload(t, 'Bad Name.zip', data)
    expect(badName.status).toBe(400)
    expect(badName.body.data.file.code).toBe('validation_match_invalid')
    const notZip = await upload(t, 'not_zip.zip', Buffer.from('plain text, not an archive'))
    expect(notZip.status).toBe(400)
    expect(notZip.body.data.file.code).toBe('validation_invalid_mime_type')
    const slip = await upload(t, 'slip.zip', await makeZip([{ name: '../../etc/x', data: 'x' }]))
    expect(slip.status).toBe(400)
    expect(slip.body.data.file.message).toContain('leads out of the folder')
    const form = new FormData()
    form.append('other', new Blob([data]), 'x.zip')
    const none = await t.api('POST', '/api/backups/upload', { token: t.suToken, raw: form })
    expect(none.status).toBe(400)
    expect(none.body.data.file.code).toBe('validation_required')
    const keys = (await t.api('GET', '/api/backups', { token: t.suToken })).body.map(
      (b: any) => b.key,
    )
    expect(keys).not.toContain('not_zip.zip')
    expect(keys).not.toContain('slip.zip')
  })

  it('deletes an archive (204), then answers 400 for it', async () => {
    expect(
      (await t.api('DELETE', '/api/backups/uploaded_copy.zip', { token: t.suToken })).status,
    ).toBe(204)
    const again = await t.api('DELETE', '/api/backups/uploaded_copy.zip', { token: t.suToken })
    expect(again.status).toBe(400)
    expect(again.body.message).toBe('Invalid or already deleted backup file.')
    const traversal = await t.api('DELETE', '/api/backups/..%2Fdata.db', { token: t.suToken })
    expect(traversal.status).toBe(400)
    if (!onPostgres) expect(existsSync(join(t.dir, 'data.db'))).toBe(true)
  })

  it('says where backups go: storage-info', async () => {
    const res = await t.api('GET', '/api/backups/storage-info', { token: t.suToken })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ driver: 'local' })
  })

  it('takes one backup at a time; health says canBackup false meanwhile', async () => {
    const health = async () =>
      (await t.api('GET', '/api/health', { token: t.suToken })).body.data.canBackup as boolean
    expect(await health()).toBe(true)
    const runs = await Promise.all(
      [1, 2, 3].map((i) =>
        t.api('POST', '/api/backups', { token: t.suToken, body: { name: `parallel_${i}.zip` } }),
      ),
    )
    const statuses = runs.map((r) => r.status).sort()
    expect(statuses).toEqual([204, 400, 400])
    for (const r of runs.filter((x) => x.status === 400))
      expect(r.body.message).toBe(
        'Try again later - another backup/restore process has already been started.',
      )
    // canBackup is false while one runs.
    const running = t.api('POST', '/api/backups', {
      token: t.suToken,
      body: { name: 'watched.zip' },
    })
    let seenBusy = false
    while (!seenBusy) {
      seenBusy = !(await health())
      const done = await Promise.race([running.then(() => true), Promise.resolve(false)])
      if (done) break
    }
    expect((await running).status).toBe(204)
    expect(seenBusy).toBe(true)
    expect(await health()).toBe(true)
  })

  it('takes a consistent backup while writers keep writing, none of them failing', async () => {
    const before = Number(
      (await t.api('GET', '/api/collections/posts/records?perPage=1', { token: t.suToken })).body
        .totalItems,
    )
    let stop = false
    let writes = 0
    const failures: unknown[] = []
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const res = await t.api('POST', '/api/collections/posts/records', {
          body: { title: `w${w}-${i}` },
        })
        if (res.status === 200) writes++
        else failures.push(res.body)
      }
    }
    const writers = [1, 2, 3, 4].map(writer)
    await new Promise((r) => setTimeout(r, 100))
    const atStart = writes
    const res = await t.api('POST', '/api/backups', {
      token: t.suToken,
      body: { name: 'busy.zip' },
    })
    const atEnd = writes
    await new Promise((r) => setTimeout(r, 100))
    stop = true
    await Promise.all(writers)
    expect(res.status).toBe(204)
    expect(failures).toEqual([])
    expect(atEnd).toBeGreaterThan(atStart) // writes went on during the backup
    const out = join(work, 'busy')
    unzipTo(work, await download(t, 'busy.zip'), out)
    expect(checkDbFile(join(out, dbFiles.main))).toBe('ok')
    const rows = Number(queryBackup(join(out, dbFiles.main), 'SELECT COUNT(*) FROM posts'))
    expect(rows).toBeGreaterThanOrEqual(before + atStart)
    expect(rows).toBeLessThanOrEqual(before + atEnd)
  })
})

describe('backups feature switched off', () => {
  it('has no routes and health says canBackup false', async () => {
    const t = await startServer({ disable: ['backups'] })
    try {
      expect((await t.api('GET', '/api/backups', { token: t.suToken })).status).toBe(404)
      const health = await t.api('GET', '/api/health', { token: t.suToken })
      expect(health.body.data.canBackup).toBe(false)
    } finally {
      await t.close()
    }
  })
})
