/**
 * Backups on S3 (the real Ceph RGW of test/global-setup.ts, a bucket of its own): with
 * `backups.s3` enabled archives are written to the bucket (nothing local), listed from it,
 * downloaded and restored from it; with files on S3 too, the archive holds no `storage/`.
 */
import { mkdtempSync, readdirSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { S3Filesystem } from '../src/tools/filesystem/s3.js'
import {
  download,
  seedPosts,
  checkDbFile,
  dbFiles,
  dropScratchDatabases,
  onPostgres,
  queryBackup,
  titles,
  unzipTest,
  unzipTo,
  until,
} from './helpers/backups.js'
import { createTestBucket, type TestBucket } from './helpers/s3-bucket.js'
import { startServer, type TestServer } from './helpers/server.js'

describe('backups on S3 (Ceph RGW)', () => {
  let t: TestServer
  let bucket: TestBucket
  let work: string

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'svcbase-backups-s3-'))
    bucket = await createTestBucket('backups')
    t = await startServer()
    await seedPosts(t, 4)
    const res = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { backups: { s3: bucket.settings } },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    await bucket?.drop()
    rmSync(work, { recursive: true, force: true })
  })

  it('says the archives go to the bucket: storage-info', async () => {
    const res = await t.api('GET', '/api/backups/storage-info', { token: t.suToken })
    expect(res.body).toEqual({ driver: 's3', bucket: bucket.name, prefix: '' })
  })

  it('creates, lists and downloads archives kept in the bucket only', async () => {
    const res = await t.api('POST', '/api/backups', {
      token: t.suToken,
      body: { name: 's3_snap.zip' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    // Independently of svcbase's listing: the object is in the bucket.
    const fs = new S3Filesystem(bucket.config)
    try {
      const info = await fs.stat('s3_snap.zip')
      expect(info?.size).toBeGreaterThan(1000)
    } finally {
      await fs.close()
    }
    expect(existsSync(join(t.dir, 'backups', 's3_snap.zip'))).toBe(false)
    const list = await t.api('GET', '/api/backups', { token: t.suToken })
    expect(list.body.map((b: any) => b.key)).toEqual(['s3_snap.zip'])
    const data = await download(t, 's3_snap.zip')
    expect(data.length).toBe(list.body[0].size)
    expect(unzipTest(work, data)).toContain('No errors detected')
    const out = join(work, 'x')
    unzipTo(work, data, out)
    expect(checkDbFile(join(out, dbFiles.main))).toBe('ok')
    expect(queryBackup(join(out, dbFiles.main), 'SELECT COUNT(*) FROM posts')).toBe('4')
    if (onPostgres) dropScratchDatabases()
  })

  it('restores from the bucket', async () => {
    await t.api('POST', '/api/collections/posts/records', {
      body: { title: 'not in the snapshot' },
    })
    const oldApp = t.server.app
    const res = await t.api('POST', '/api/backups/s3_snap.zip/restore', { token: t.suToken })
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    await until(() => t.server.app !== oldApp && t.server.app.isBootstrapped, 20_000)
    expect(await titles(t)).toEqual(['p1', 'p2', 'p3', 'p4'])
    // The restored settings still send backups to the bucket.
    const list = await t.api('GET', '/api/backups', { token: t.suToken })
    expect(list.body.map((b: any) => b.key)).toEqual(['s3_snap.zip'])
    await until(() => readdirSync(join(t.dir, '.svc_tmp')).length === 0)
  }, 30_000)

  it('leaves storage/ out of the archive when files are on S3 too', async () => {
    const patched = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { s3: bucket.settings },
    })
    expect(patched.status).toBe(200)
    const form = new FormData()
    form.append('title', 'file on s3')
    form.append('doc', new Blob(['remote']), 'r.txt')
    expect((await t.api('POST', '/api/collections/posts/records', { raw: form })).status).toBe(200)
    const res = await t.api('POST', '/api/backups', {
      token: t.suToken,
      body: { name: 'no_files.zip' },
    })
    expect(res.status).toBe(204)
    const listing = unzipTest(work, await download(t, 'no_files.zip'), 'nf.zip')
    expect(listing).toMatch(new RegExp(`testing: ${dbFiles.main.replace('.', '\\.')}\\s+OK`))
    expect(listing).not.toContain('storage/')
    // Deleting works on the bucket too.
    expect((await t.api('DELETE', '/api/backups/no_files.zip', { token: t.suToken })).status).toBe(
      204,
    )
    const keys = (await t.api('GET', '/api/backups', { token: t.suToken })).body.map(
      (b: any) => b.key,
    )
    expect(keys).toEqual(['s3_snap.zip'])
  })
})
