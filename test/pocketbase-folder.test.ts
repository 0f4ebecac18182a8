/**
 * A PocketBase data folder is a svcbase data folder (issue 35): the folder PocketBase 0.40.4 made
 * (test/pocketbase/folder/, `npm run oracle:record -- folder`) served by svcbase answers PocketBase's
 * client as PocketBase did, sign-ins and the tokens PocketBase issued included; svcbase backs it up
 * first in PocketBase's format, writes PocketBase's format, and a start that fails changes nothing.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import yauzl from 'yauzl'
import { afterAll, describe, expect, it } from 'vitest'
import type { Logger } from '../src/core/logger.js'
import { createServer, type Server } from '../src/server.js'
import { digests, FIXTURE, recording, unlistedDifferences } from './pocketbase/folder/replay.js'
import { ORACLE_VERSION } from './pocketbase/harness.js'

const scratch = mkdtempSync(join(tmpdir(), 'svcbase-pbfolder-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A copy of the fixture's `pb_data` in a fresh folder. */
function copyFixture(name: string): string {
  const dir = join(scratch, name, 'pb_data')
  cpSync(join(FIXTURE, 'app', 'pb_data'), dir, { recursive: true })
  return dir
}

/** A logger keeping what it is told. */
function keptLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  const keep = (m: string, d?: Record<string, unknown>) => lines.push(`${m} ${JSON.stringify(d)}`)
  return { lines, debug: keep, info: keep, warn: keep, error: keep }
}

/** The entry names of a ZIP archive. */
function zipEntries(path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err)
      const names: string[] = []
      zip.on('entry', (e: yauzl.Entry) => {
        names.push(e.fileName)
        zip.readEntry()
      })
      zip.on('end', () => resolve(names))
      zip.readEntry()
    })
  })
}

const rows = (dataDir: string) => {
  const db = new Database(join(dataDir, 'data.db'), { readonly: true })
  try {
    return db.prepare('SELECT name, type, fields, options FROM _collections').all() as Array<{
      name: string
      type: string
      fields: string
      options: string
    }>
  } finally {
    db.close()
  }
}

describe(`a data folder of ${ORACLE_VERSION}`, () => {
  const dataDir = copyFixture('served')
  const logger = keptLogger()
  let server: Server

  it('is served: a client of the app gets PocketBase’s answers, with the tokens it issued', async () => {
    expect(recording.oracle).toBe(ORACLE_VERSION)
    server = await createServer({ dataDir, logger })
    const url = await server.listen({ host: '127.0.0.1', port: 0 })
    const unlisted = await unlistedDifferences(url)
    expect(unlisted).toEqual([])
    await server.close()
  }, 60_000)

  it('was backed up first, in PocketBase’s backup format, holding the folder as it was', async () => {
    const backups = readdirSync(join(dataDir, 'backups')).filter((n) => n.endsWith('.zip'))
    expect(backups).toHaveLength(1)
    expect(backups[0]).toMatch(/^pb_backup_before_svcbase_\d{14}\.zip$/)
    const names = await zipEntries(join(dataDir, 'backups', backups[0]!))
    expect(names).toEqual(expect.arrayContaining(['data.db', 'auxiliary.db']))
    expect(names.filter((n) => n.startsWith('storage/pbc_')).length).toBeGreaterThan(0)
    expect(
      logger.lines.some((l) => l.startsWith('svcbase changed this PocketBase data folder')),
    ).toBe(true)
  })

  it('keeps PocketBase’s format: fields flat, auth options at the top level, view queries', () => {
    const all = rows(dataDir)
    for (const r of all) {
      for (const f of JSON.parse(r.fields) as Array<Record<string, unknown>>)
        expect(f.options, `${r.name}.${String(f.name)}`).toBeUndefined()
      const options = JSON.parse(r.options) as Record<string, unknown>
      expect(options.authOptions, r.name).toBeUndefined()
      if (r.type === 'auth')
        expect(typeof (options.authToken as { secret: unknown }).secret).toBe('string')
      if (r.type === 'view') expect(typeof options.viewQuery).toBe('string')
    }
    expect(all.map((r) => r.name)).toEqual(
      expect.arrayContaining(['posts', 'posts_stats', '_logs']),
    )
  })

  it('is not backed up again on the next start', async () => {
    server = await createServer({ dataDir, logger: keptLogger() })
    await server.close()
    expect(readdirSync(join(dataDir, 'backups')).filter((n) => n.endsWith('.zip'))).toHaveLength(1)
  })
})

describe('a one-time password PocketBase issued (its `_otps` row, bcrypt-hashed)', () => {
  it('signs the user in once, as PocketBase 0.40.4 does (checked on the oracle by hand)', async () => {
    // The recorded row is days old, past the 180 s an OTP lives: make it fresh, as if just sent.
    const dataDir = copyFixture('otp')
    const db = new Database(join(dataDir, 'data.db'))
    const now = new Date().toISOString().replace('T', ' ')
    db.prepare('UPDATE _otps SET created = ?, updated = ?').run(now, now)
    const { id } = db.prepare('SELECT id FROM _otps').get() as { id: string }
    db.close()
    const server = await createServer({ dataDir, logger: keptLogger() })
    const url = await server.listen({ host: '127.0.0.1', port: 0 })
    const signIn = (password: string) =>
      fetch(`${url}/api/collections/users/auth-with-otp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ otpId: id, password }),
      })
    // PocketBase's answers to the same three requests: 200 with the user, then 400 twice.
    const ok = await signIn('123456')
    const body = (await ok.json()) as { token?: string; record?: { id: string } }
    expect(ok.status, JSON.stringify(body)).toBe(200)
    expect(body.record?.id).toBe('usr000000000001')
    expect(typeof body.token).toBe('string')
    for (const again of ['654321', '123456']) {
      const res = await signIn(again)
      expect(res.status).toBe(400)
      expect(((await res.json()) as { message: string }).message).toBe('Invalid or expired OTP.')
    }
    await server.close()
  }, 60_000)
})

describe('a start on a PocketBase folder that fails', () => {
  it('changes nothing: the files are as they were, and no backup is left', async () => {
    const dataDir = copyFixture('failing')
    const db = new Database(join(dataDir, 'data.db'))
    db.prepare("UPDATE _collections SET fields = 'not json' WHERE name = 'tags'").run()
    db.close()
    const before = digests(dataDir)
    await expect(createServer({ dataDir, logger: keptLogger() })).rejects.toThrow()
    expect(digests(dataDir)).toEqual(before)
    expect(existsSync(join(dataDir, 'backups'))).toBe(false)
  })

  it('refuses PocketBase data from before 0.23, naming PocketBase’s upgrade path', async () => {
    const dataDir = join(scratch, 'legacy', 'pb_data')
    cpSync(join(FIXTURE, 'app', 'pb_data', 'auxiliary.db'), join(dataDir, 'auxiliary.db'))
    const db = new Database(join(dataDir, 'data.db'))
    db.exec('CREATE TABLE _collections (id TEXT PRIMARY KEY, name TEXT, type TEXT, schema JSON)')
    db.exec('CREATE TABLE _admins (id TEXT PRIMARY KEY, email TEXT)')
    db.close()
    const before = digests(dataDir)
    await expect(createServer({ dataDir, logger: keptLogger() })).rejects.toThrow(
      /before v0\.23.*v023upgrade/,
    )
    expect(digests(dataDir)).toEqual(before)
  })
})

describe('a folder of an earlier svcbase (options nested in `_collections`)', () => {
  const COMMON = [
    'id',
    'name',
    'type',
    'required',
    'unique',
    'system',
    'hidden',
    'presentable',
    'help',
  ]

  /** Rewrites every row as svcbase stored it before: options nested, auth options apart. */
  function toEarlierFormat(dataDir: string): void {
    const db = new Database(join(dataDir, 'data.db'))
    for (const r of db
      .prepare('SELECT id, type, fields, options FROM _collections')
      .all() as Array<{
      id: string
      type: string
      fields: string
      options: string
    }>) {
      const fields = (JSON.parse(r.fields) as Array<Record<string, unknown>>).map((f) => {
        const options = Object.fromEntries(Object.entries(f).filter(([k]) => !COMMON.includes(k)))
        const common = Object.fromEntries(Object.entries(f).filter(([k]) => COMMON.includes(k)))
        return { unique: false, ...common, options }
      })
      const { database, viewQuery, ...auth } = JSON.parse(r.options) as Record<string, unknown>
      const options = {
        ...(viewQuery === undefined ? {} : { viewQuery }),
        ...(r.type === 'auth' ? { authOptions: auth } : {}),
        ...(database === undefined ? {} : { database }),
      }
      db.prepare('UPDATE _collections SET fields = ?, options = ? WHERE id = ?').run(
        JSON.stringify(fields),
        JSON.stringify(options),
        r.id,
      )
    }
    db.close()
  }

  it('moves to PocketBase’s format on start, with a backup first, the collections unchanged', async () => {
    const dataDir = join(scratch, 'earlier', 'pb_data')
    let server = await createServer({ dataDir, logger: keptLogger() })
    await server.app.collections.create({
      name: 'notes',
      fields: [
        { name: 'title', type: 'text', max: 40 },
        { name: 'tags', type: 'select', values: ['a', 'b'], maxSelect: 2 },
      ],
    })
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)
    const before = structuredClone(server.app.collections.all()).sort(byId)
    await server.close()
    toEarlierFormat(dataDir)
    expect(rows(dataDir).some((r) => r.fields.includes('"options":{'))).toBe(true)
    server = await createServer({ dataDir, logger: keptLogger() })
    const after = structuredClone(server.app.collections.all()).sort(byId)
    await server.close()
    expect(after).toEqual(before)
    for (const r of rows(dataDir)) {
      expect(r.fields.includes('"options":{'), r.name).toBe(false)
      expect(r.options.includes('"authOptions"'), r.name).toBe(false)
    }
    expect(readdirSync(join(dataDir, 'backups')).filter((n) => n.endsWith('.zip'))).toHaveLength(1)
  })
})

describe('settings PocketBase stored encrypted (PB_ENCRYPTION_KEY)', () => {
  const enc = JSON.parse(readFileSync(join(FIXTURE, 'encrypted-settings.json'), 'utf8')) as {
    oracle: string
    key: string
    value: string
  }

  const withStoredSettings = (name: string): string => {
    const dataDir = copyFixture(name)
    const db = new Database(join(dataDir, 'data.db'))
    db.prepare("UPDATE _params SET value = ? WHERE id = 'settings'").run(enc.value)
    db.close()
    return dataDir
  }

  it('are read with the same key, and stay in PocketBase’s form when changed', async () => {
    expect(enc.oracle).toBe(ORACLE_VERSION)
    const dataDir = withStoredSettings('encrypted')
    const server = await createServer({ dataDir, logger: keptLogger(), encryptionKey: enc.key })
    expect(server.app.settings.get().meta.appName).toBe('Secret App')
    expect(server.app.settings.get().smtp.password).toBe('smtp-pass')
    await server.app.settings.update({ meta: { appName: 'Still Secret' } })
    await server.close()
    const db = new Database(join(dataDir, 'data.db'), { readonly: true })
    const row = db.prepare("SELECT value FROM _params WHERE id = 'settings'").get() as {
      value: string
    }
    db.close()
    expect(row.value).toMatch(/^[A-Za-z0-9+/]+=*$/)
    const again = await createServer({ dataDir, logger: keptLogger(), encryptionKey: enc.key })
    expect(again.app.settings.get().meta.appName).toBe('Still Secret')
    await again.close()
  })

  it('without the key, or with another, the start fails saying so', async () => {
    await expect(
      createServer({ dataDir: withStoredSettings('no-key'), logger: keptLogger() }),
    ).rejects.toThrow(/encrypted by PocketBase.*32-character/)
    await expect(
      createServer({
        dataDir: withStoredSettings('other-key'),
        logger: keptLogger(),
        encryptionKey: 'ffffffffffffffffffffffffffffffff',
      }),
    ).rejects.toThrow(/not the one PocketBase saved them with/)
  })
})

describe('a folder svcbase makes from nothing', () => {
  it('counts PocketBase’s own migrations as applied, exactly those of PocketBase’s folder', async () => {
    const dataDir = join(scratch, 'fresh', 'pb_data')
    const server = await createServer({ dataDir, logger: keptLogger() })
    await server.close()
    const goRows = (dir: string) => {
      const db = new Database(join(dir, 'data.db'), { readonly: true })
      try {
        return (
          db.prepare('SELECT file FROM _migrations ORDER BY file').all() as Array<{ file: string }>
        )
          .map((r) => r.file)
          .filter((f) => f.endsWith('.go'))
      } finally {
        db.close()
      }
    }
    // NB: read from a copy: opening the fixture's data.db would leave -shm/-wal files beside it.
    expect(goRows(dataDir)).toEqual(goRows(copyFixture('pocketbase-rows')))
    // What PocketBase answered when it opened such a folder (npm run oracle:record -- folder).
    expect(recording.svcbaseFolder.map((a) => `${a.name} ${a.status}`)).toEqual([
      'read svcbase note 200',
      'write note 200',
      'list notes 200',
    ])
  })
})
