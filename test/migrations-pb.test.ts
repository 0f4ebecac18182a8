/**
 * PocketBase's `pb_migrations` files on svcbase, against what PocketBase 0.40.4 made of the same
 * folders (test/pocketbase/migrations/expected.json, recorded by
 * test/pocketbase/migrations/record.ts): the collections and records through the API, the
 * `_migrations` history, and the failures (a throwing file, a pre-0.23 `Dao` file) that keep
 * nothing.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  applyMigrations,
  MigrationError,
  revertMigrations,
} from '../src/features/hooks/pb/migrate/runner.js'
import { sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'
import { COLLECTIONS, copyFolder, HERE } from './pocketbase/migrations/folders.js'

/** The folders, copied where `*.ts_` files are `*.ts` again (see folders.ts). */
const scratch = mkdtempSync(join(tmpdir(), 'svcbase-mig-folders-'))
const FOLDERS: Record<string, string> = {}
for (const name of [
  'folder',
  'failing',
  'legacy',
  'semantics',
  'invalid',
  'invalid-settings',
  'invalid-field',
]) {
  FOLDERS[name] = join(scratch, name)
  copyFolder(name, FOLDERS[name])
}
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const expected = JSON.parse(readFileSync(join(HERE, 'expected.json'), 'utf8')) as {
  folder: {
    output: string[]
    userCollections: string[]
    migrations: string[]
    collections: Record<string, Record<string, unknown>>
    records: Record<string, Record<string, unknown>[]>
    appName: string
  }
  semantics: [string, string][]
  snapshot: { name: string; text: string }
  failures: Record<
    string,
    { status: number; error: string; migrations: string[]; userCollections: string[] }
  >
}

/** The `_migrations` rows of files (not PocketBase's own `.go` ones), by name. */
async function fileRows(s: TestServer): Promise<string[]> {
  const rows = await s.server.app.db.all<{ file: string }>(
    sql`SELECT file FROM _migrations ORDER BY file`,
  )
  return rows.map((r) => r.file).filter((f) => !f.endsWith('.go'))
}

const userCollections = (s: TestServer): string[] =>
  s.server.app.collections
    .all()
    .filter((c) => !c.system)
    .map((c) => c.name)
    .sort()

/**
 * A field as compared: every key PocketBase sent. svcbase's own `created`/`updated` system
 * autodate fields (every record has both, docs/collections.md) are left out where PocketBase
 * has none.
 */
function fieldsOf(c: Record<string, unknown>, like?: Record<string, unknown>): unknown[] {
  const names = new Set(((like?.fields ?? c.fields) as { name: string }[]).map((f) => f.name))
  return (c.fields as Record<string, unknown>[])
    .filter((f) => names.has(f.name as string))
    .map((f) => {
      const want = (like?.fields as Record<string, unknown>[] | undefined)?.find(
        (o) => o.name === f.name,
      )
      return Object.fromEntries(Object.keys(want ?? f).map((k) => [k, f[k]]))
    })
}

/** What the test compares of a collection: PocketBase's keys, secrets and dates left out. */
function collectionView(c: Record<string, unknown>, like: Record<string, unknown>): unknown {
  const keys = ['id', 'name', 'type', 'system', 'listRule', 'viewRule', 'createRule']
  const out: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, c[k]]))
  out.updateRule = c.updateRule
  out.deleteRule = c.deleteRule
  out.indexes = c.indexes
  out.fields = fieldsOf(c, like)
  if (like.type === 'auth') {
    out.passwordAuth = c.passwordAuth
    out.authRule = c.authRule
    out.manageRule = c.manageRule
  }
  return out
}

/** A record as compared: its values, relation ids as the related tag's label. */
function recordView(r: Record<string, unknown>, tagLabels: Map<string, string>): unknown {
  const { id: _i, created: _c, updated: _u, ...rest } = r
  if (Array.isArray(rest.tags)) rest.tags = (rest.tags as string[]).map((t) => tagLabels.get(t))
  return rest
}

describe('a PocketBase migrations folder (the oracle applied it too)', () => {
  let s: TestServer
  let applied: string[]
  beforeAll(async () => {
    s = await startServer()
    applied = await applyMigrations(s.server.app, FOLDERS.folder!)
  })
  afterAll(() => s.close())

  it('applies every file in name order and records each under its base name', async () => {
    expect(applied.map((f) => `Applied ${f}`)).toEqual(expected.folder.output)
    expect(await fileRows(s)).toEqual(expected.folder.migrations)
    expect(userCollections(s)).toEqual(expected.folder.userCollections)
  })

  it('makes the collections PocketBase made', async () => {
    for (const [name, want] of Object.entries(expected.folder.collections)) {
      const got = await s.api('GET', `/api/collections/${name}`, { token: s.suToken })
      expect(got.status).toBe(200)
      expect(collectionView(got.body, want), name).toEqual(collectionView(want, want))
    }
  })

  it('writes the records PocketBase wrote (saves, finds after saves, raw SQL)', async () => {
    const tagsOf = (list: Record<string, unknown>[]) =>
      new Map(list.map((t) => [t.id as string, t.label as string]))
    const ours = new Map<string, Record<string, unknown>[]>()
    for (const name of Object.keys(expected.folder.records)) {
      const sort = COLLECTIONS[name as keyof typeof COLLECTIONS]
      const got = await s.api('GET', `/api/collections/${name}/records?sort=${sort}`, {
        token: s.suToken,
      })
      expect(got.status).toBe(200)
      ours.set(name, got.body.items)
    }
    const ourTags = tagsOf(ours.get('tags')!)
    const theirTags = tagsOf(expected.folder.records.tags!)
    for (const [name, want] of Object.entries(expected.folder.records))
      expect(
        ours.get(name)!.map((r) => recordView(r, ourTags)),
        name,
      ).toEqual(want.map((r) => recordView(r, theirTags)))
    // The member's password was set through the record: it signs in.
    const login = await s.api('POST', '/api/collections/members/auth-with-password', {
      body: { identity: 'member@example.com', password: 'member-password-1' },
    })
    expect(login.status).toBe(200)
  })

  it('changes the settings (app.settings() then app.save(settings))', async () => {
    const got = await s.api('GET', '/api/settings', { token: s.suToken })
    expect(got.body.meta.appName).toBe(expected.folder.appName)
  })

  it('runs nothing twice', async () => {
    expect(await applyMigrations(s.server.app, FOLDERS.folder!)).toEqual([])
    const tags = await s.api('GET', '/api/collections/tags/records', { token: s.suToken })
    expect(tags.body.totalItems).toBe(3)
  })

  it('reverts the last ones with their down, newest first', async () => {
    const reverted = await revertMigrations(s.server.app, FOLDERS.folder!, 4)
    expect(reverted).toEqual([
      '1700000007_deleted_notes.js',
      '1700000006_snapshot.ts',
      '1700000005_members_and_settings.js',
      '1700000004_seed.js',
    ])
    expect(await fileRows(s)).toEqual(expected.folder.migrations.slice(0, 3))
    expect(userCollections(s)).toEqual(['posts', 'tags', 'users'])
    const tags = await s.api('GET', '/api/collections/tags/records', { token: s.suToken })
    expect(tags.body.totalItems).toBe(0)
    // And forward again.
    expect(await applyMigrations(s.server.app, FOLDERS.folder!)).toEqual(reverted.reverse())
  })
})

describe('a failing migration', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startServer()
  })
  afterAll(() => s.close())

  for (const name of ['failing', 'legacy', 'invalid', 'invalid-settings', 'invalid-field']) {
    it(`${name}: stops with the file and the error; nothing of the run is kept`, async () => {
      const want = expected.failures[name]!
      const err = await applyMigrations(s.server.app, FOLDERS[name]!).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(MigrationError)
      // The same words as PocketBase up to the position (PocketBase names its own `pb.js`).
      const text = (err as Error).message
      expect(text.replace(/ at \S+$/, '')).toBe(want.error.replace(/ at \S+$/, ''))
      // A script's own error says where; an app call's (a Go error in PocketBase) does not.
      if (/ at \S+$/.test(want.error)) expect(text).toContain(` at ${FOLDERS[name]}/`)
      else expect(text).toBe(want.error)
      expect(await fileRows(s)).toEqual(want.migrations)
      expect(userCollections(s)).toEqual(want.userCollections)
      // The settings an earlier file of the run changed are not kept either.
      expect(s.server.app.settings.get().meta.appName).not.toBe('From CLI')
    })
  }
})

describe("PocketBase's own `migrate collections` snapshot of that app", () => {
  let s: TestServer
  let dir: string
  beforeAll(async () => {
    s = await startServer()
    dir = mkdtempSync(join(tmpdir(), 'svcbase-mig-snapshot-'))
    writeFileSync(join(dir, `1800000000_${expected.snapshot.name}`), expected.snapshot.text)
  })
  afterAll(async () => {
    await s.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('applies on a new app (system collections included) and makes the same collections', async () => {
    expect(await applyMigrations(s.server.app, dir)).toEqual([
      `1800000000_${expected.snapshot.name}`,
    ])
    for (const [name, want] of Object.entries(expected.folder.collections)) {
      const got = await s.api('GET', `/api/collections/${name}`, { token: s.suToken })
      expect(got.status).toBe(200)
      expect(collectionView(got.body, want), name).toEqual(collectionView(want, want))
    }
  })
})

describe('app calls behave synchronously, as in PocketBase', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startServer()
  })
  afterAll(() => s.close())

  it('errors caught by try/catch, reads after writes, ids after saves', async () => {
    expect(await applyMigrations(s.server.app, FOLDERS.semantics!)).toEqual([
      '1700000001_semantics.js',
    ])
    const got = await s.api('GET', '/api/collections/probe/records?perPage=100&sort=key', {
      token: s.suToken,
    })
    expect(got.body.items.map((r: Record<string, string>) => [r.key, r.value])).toEqual(
      expected.semantics,
    )
  })
})

describe('the history', () => {
  let s: TestServer
  let dir: string
  beforeAll(async () => {
    s = await startServer()
    dir = mkdtempSync(join(tmpdir(), 'svcbase-mig-'))
  })
  afterAll(async () => {
    await s.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('transpiles a .ts file with TypeScript syntax (types stripped), as hook scripts', async () => {
    const ts = mkdtempSync(join(tmpdir(), 'svcbase-mig-ts-'))
    try {
      writeFileSync(
        join(ts, '1600000000_typed.ts'),
        'interface Shape { name: string }\nconst shape: Shape = { name: "typed" }\nmigrate((app: any): void => { app.save(new Collection(shape as Shape)) })\n',
      )
      expect(await applyMigrations(s.server.app, ts)).toEqual(['1600000000_typed.ts'])
      expect(s.server.app.collections.find('typed')).toBeDefined()
    } finally {
      rmSync(ts, { recursive: true, force: true })
    }
  })

  it('skips files PocketBase already applied and keeps its own .go rows', async () => {
    cpSync(join(FOLDERS.legacy!, '1700000001_ok.js'), join(dir, '1700000001_ok.js'))
    writeFileSync(
      join(dir, '1700000002_new.js'),
      'migrate((app) => { app.save(new Collection({ name: "fresh" })) })\n',
    )
    // PocketBase's own row (svcbase may have written it already for a new data folder).
    const goRow = await s.server.app.db.get(
      sql`SELECT file FROM _migrations WHERE file = '1640988000_init.go'`,
    )
    if (!goRow)
      await s.server.app.db.run(
        sql`INSERT INTO _migrations (file, applied) VALUES ('1640988000_init.go', 1796617262268415)`,
      )
    await s.server.app.db.run(
      sql`INSERT INTO _migrations (file, applied) VALUES ('1700000001_ok.js', 1796617262268416)`,
    )
    expect(await applyMigrations(s.server.app, dir)).toEqual(['1700000002_new.js'])
    expect(userCollections(s)).toEqual(['fresh', 'typed', 'users'])
    const rows = await s.server.app.db.all<{ file: string; applied: number | string }>(
      sql`SELECT file, applied FROM _migrations WHERE file NOT LIKE '%.go' OR file = '1640988000_init.go' ORDER BY file`,
    )
    expect(rows.map((r) => r.file)).toEqual([
      '1600000000_typed.ts',
      '1640988000_init.go',
      '1700000001_ok.js',
      '1700000002_new.js',
    ])
    // `applied` in microseconds, as PocketBase writes it.
    const micros = Number(rows.find((r) => r.file === '1700000002_new.js')!.applied)
    expect(Math.abs(micros / 1000 - Date.now())).toBeLessThan(60_000)
  })
})
