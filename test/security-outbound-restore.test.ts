/**
 * Security issue #32, point 15, black-box on a real small disk: a server whose data directory is
 * on a 64 MiB tmpfs refuses to restore an archive that would unpack to nearly all of its free
 * space (a real backup plus filler, the free space minus 2.4 MB): it keeps a headroom (10 % of
 * the disk, at most 1 GiB) and says so in the 400, with nothing written. A normal backup of the
 * same server still restores. Needs root (mount); it runs as root here.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import yauzl from 'yauzl'
import { download, makeZip, type ZipEntry } from './helpers/backups.js'
import { startServer, type TestServer } from './helpers/server.js'

const MiB = 1024 * 1024
let mount = ''
let t: TestServer | undefined

const freeBytes = (dir: string): number => {
  const s = statfsSync(dir)
  return s.bavail * s.bsize
}

/** The entries of a ZIP in memory (a real backup's). */
function entriesOf(zip: Buffer): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err ?? new Error('no zip'))
      const out: ZipEntry[] = []
      file.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return file.readEntry()
        file.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'))
          const chunks: Buffer[] = []
          stream.on('data', (c: Buffer) => chunks.push(c))
          stream.on('end', () => {
            out.push({ name: entry.fileName, data: Buffer.concat(chunks) })
            file.readEntry()
          })
        })
      })
      file.on('end', () => resolve(out))
      file.on('error', reject)
      file.readEntry()
    })
  })
}

beforeAll(async () => {
  mount = mkdtempSync(join(tmpdir(), 'svcbase-outbound-tmpfs-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mount])
  // startServer makes its data directory under the temporary folder: the tmpfs, for this one.
  const previous = process.env.TMPDIR
  process.env.TMPDIR = mount
  try {
    t = await startServer()
  } finally {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
  }
  expect(t.dir.startsWith(mount)).toBe(true)
})

afterAll(async () => {
  await t?.close()
  if (mount) {
    execFileSync('umount', [mount])
    rmSync(mount, { recursive: true, force: true })
  }
})

describe('a restore keeps disk headroom (#32.15)', () => {
  it('refuses an archive that would leave the disk nearly full, with the headroom in the 400', async () => {
    const server = t!
    const made = await server.api('POST', '/api/backups', {
      token: server.suToken,
      body: { name: 'good.zip' },
    })
    expect(made.status).toBe(204)
    const real = await entriesOf(await download(server, 'good.zip'))
    expect(real.some((e) => e.name === 'data.db')).toBe(true)

    // A real backup plus zeros (compressed to almost nothing): unpacked, the free space minus
    // 2.4 MB, measured once the archive is in place.
    const realBytes = real.reduce((n, e) => n + (e.data as Buffer).length, 0)
    const target = async (filler: number) =>
      makeZip([...real, { name: 'storage/filler.bin', data: Buffer.alloc(filler) }])
    const path = join(server.dir, 'backups', 'huge.zip')
    let zip = await target(freeBytes(server.dir) - realBytes - 2.4 * MiB)
    writeFileSync(path, zip)
    const free = freeBytes(server.dir)
    zip = await target(free + zip.length - realBytes - Math.round(2.4 * MiB))
    writeFileSync(path, zip)
    const freeBefore = freeBytes(server.dir)

    const res = await server.api('POST', '/api/backups/huge.zip/restore', {
      token: server.suToken,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.message).toMatch(/^The backup cannot be restored, nothing was changed: /)
    expect(res.body.message).toMatch(/would unpack to more than \d+ bytes/)
    expect(res.body.message).toMatch(/less a headroom of \d+ bytes kept free: 10 % of the disk/)
    // Nothing was extracted (the check reads the archive's directory first), nothing is left.
    expect(freeBytes(server.dir)).toBeGreaterThanOrEqual(freeBefore - MiB)
    // The server still serves.
    expect((await server.api('GET', '/api/health')).status).toBe(200)
  })

  it('still restores a backup that fits with the headroom to spare', async () => {
    const server = t!
    const res = await server.api('POST', '/api/backups/good.zip/restore', {
      token: server.suToken,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    let ok = false
    for (let i = 0; i < 100 && !ok; i++) {
      await new Promise((r) => setTimeout(r, 100))
      ok = await server
        .api('GET', '/api/health')
        .then((r) => r.status === 200)
        .catch(() => false)
    }
    expect(ok).toBe(true)
  })
})
