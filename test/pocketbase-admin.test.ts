/**
 * The admin endpoints answered as PocketBase 0.40.4 answers them (issue 34, the differential
 * corpus's `admin` group): PocketBase's cron ids as run-now aliases, its own `POST /api/sql`
 * beside SPEC §4.14's console, a settings PATCH applied before it is answered, the backups API's
 * errors. On SQLite and on PostgreSQL (`SVC_TEST_PG_URL`, started by test/global-setup.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOn } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

/** A well-formed 116-byte ZIP (one stored entry): never restored here. */
const REAL_ZIP = Buffer.from(
  'UEsDBBQAAAAAAAAAIVA5nPsGBAAAAAQAAAAHAAAAZGF0YS5kYmp1bmtQSwECFAMUAAAAAAAAACFQOZz7BgQAAAAEAAAABwAA' +
    'AAAAAAAAAAAAgAEAAAAAZGF0YS5kYlBLBQYAAAAAAQABADUAAAApAAAAAAA=',
  'base64',
)

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('admin endpoints as PocketBase answers them, on %s', (_engine, pg) => {
  let t: TestServer
  const su = () => t.suToken
  const sql = (body: unknown) => t.api('POST', '/api/sql', { token: su(), body })
  const upload = (name: string, content: Buffer) => {
    const form = new FormData()
    form.append('file', new Blob([content], { type: 'application/zip' }), name)
    return t.api('POST', '/api/backups/upload', { token: su(), raw: form })
  }

  beforeAll(async () => {
    t = await startOn(pg)
  })
  afterAll(() => t.close())

  it("runs svcbase's jobs by PocketBase's ids; GET /api/crons lists svcbase's", async () => {
    let runs = 0
    t.server.app.cron.add('__svcAliasProbe__', '0 0 1 1 *', () => {
      runs++
    })
    try {
      const res = await t.api('POST', '/api/crons/__pbAliasProbe__', { token: su() })
      expect(res.status).toBe(204)
      expect(runs).toBe(1)
      for (const id of ['__pbDBOptimize__', '__pbMFACleanup__', '__pbOTPCleanup__']) {
        expect((await t.api('POST', `/api/crons/${id}`, { token: su() })).status, id).toBe(204)
      }
      const missing = await t.api('POST', '/api/crons/__pbNope__', { token: su() })
      expect(missing.status).toBe(404)
      expect(missing.body.message).toBe('Missing or invalid cron job.')
      const list = await t.api('GET', '/api/crons', { token: su() })
      const ids = list.body.map((j: { id: string }) => j.id)
      expect(ids).toContain('__svcDBOptimize__')
      expect(ids.some((id: string) => id.startsWith('__pb'))).toBe(false)
    } finally {
      t.server.app.cron.remove('__svcAliasProbe__')
    }
  })

  it('a job of the exact id wins over the alias', async () => {
    const ran: string[] = []
    t.server.app.cron.add('__pbExactProbe__', '0 0 1 1 *', () => void ran.push('pb'))
    t.server.app.cron.add('__svcExactProbe__', '0 0 1 1 *', () => void ran.push('svc'))
    try {
      expect((await t.api('POST', '/api/crons/__pbExactProbe__', { token: su() })).status).toBe(204)
      expect(ran).toEqual(['pb'])
    } finally {
      t.server.app.cron.remove('__pbExactProbe__')
      t.server.app.cron.remove('__svcExactProbe__')
    }
  })

  it('applies a settings PATCH before answering it: the auto-backup job follows at once', async () => {
    // In process (Fastify's inject), as the differential replay sends them: no socket between
    // the answer and the next request.
    const send = (method: 'PATCH' | 'POST', url: string, body?: unknown) =>
      t.from('127.0.0.1', method, url, { token: su(), body })
    const listed = () => t.server.app.cron.list().some((j) => j.id === '__svcAutoBackup__')
    for (let i = 0; i < 20; i++) {
      expect(
        (await send('PATCH', '/api/settings', { backups: { cron: '0 3 * * *' } })).status,
      ).toBe(200)
      expect(listed(), `try ${i}: listed once set`).toBe(true)
      const run = await send('POST', '/api/crons/__svcAutoBackup__')
      expect(run.status, `try ${i}: set`).toBe(204)
      expect((await send('PATCH', '/api/settings', { backups: { cron: '' } })).status).toBe(200)
      expect(listed(), `try ${i}: gone once cleared`).toBe(false)
      const gone = await send('POST', '/api/crons/__pbAutoBackup__')
      expect(gone.status, `try ${i}: unset`).toBe(404)
    }
  }, 60_000)

  it('applies the read budget of a settings PATCH before answering it', async () => {
    const db = t.server.app.store.database('main')
    const original = db.setReadBudget?.bind(db)
    const seen: number[] = []
    db.setReadBudget = (ms: number) => {
      seen.push(ms)
      original?.(ms)
    }
    try {
      for (const ms of [2000, 5000]) {
        const res = await t.from('127.0.0.1', 'PATCH', '/api/settings', {
          token: su(),
          body: { reads: { timeoutMs: ms } },
        })
        expect(res.status).toBe(200)
        expect(seen.at(-1), `${ms} applied when answered`).toBe(ms)
      }
    } finally {
      db.setReadBudget = original
    }
  })

  it("serves PocketBase's POST /api/sql ({query}) beside SPEC's console ({sql, write})", async () => {
    const read = await sql({ query: "select 1 as n, 'x' as s, null as z" })
    expect(read.status).toBe(200)
    expect(Object.keys(read.body).sort()).toEqual(['affectedRows', 'columns', 'execTime', 'rows'])
    expect(read.body.affectedRows).toBe(0)
    expect(Number.isInteger(read.body.execTime)).toBe(true)
    expect(read.body.columns.map((c: { name: string }) => c.name)).toEqual(['n', 's', 'z'])
    expect(read.body.columns[0].nullable).toBe(true)
    expect(read.body.rows).toEqual([['1', 'x', null]])
    // SPEC's console keeps its shape at the same path.
    expect((await sql({ sql: 'SELECT 1 AS a' })).body).toEqual({
      columns: ['a'],
      rows: [{ a: 1 }],
      truncated: false,
    })
    // Writes run (PocketBase allows them), under the console's guards.
    expect(
      (await sql({ query: 'create table tmp_pb (id integer primary key, v text)' })).status,
    ).toBe(200)
    const inserted = await sql({ query: "insert into tmp_pb (id, v) values (1, 'a'), (2, 'b')" })
    expect(inserted.body).toMatchObject({ affectedRows: 2, columns: [], rows: [] })
    expect((await sql({ query: 'select v from tmp_pb order by id' })).body.rows).toEqual([
      ['a'],
      ['b'],
    ])
    const guarded = await sql({ query: 'delete from _params' })
    expect(guarded.status).toBe(400)
    expect(guarded.body.message).toMatch(/cannot change the rows of _params/)
    expect((await sql({ query: 'drop table tmp_pb' })).status).toBe(200)
  })

  it("answers execTime as the statement's own time, without the connection's setup", async () => {
    // The console opens a connection (a process on SQLite) for every statement: 10-100 ms.
    const times: number[] = []
    for (let i = 0; i < 3; i++) times.push((await sql({ query: 'select 1' })).body.execTime)
    expect(Math.min(...times)).toBeLessThan(5)
  })

  it('checks {query} as PocketBase does, and words driver errors as it does', async () => {
    for (const body of [{}, { query: '' }, { query: null }]) {
      const res = await sql(body)
      expect(res.status).toBe(400)
      expect(res.body.message).toBe('An error occurred while validating the submitted data.')
      expect(res.body.data).toEqual({
        query: { code: 'validation_required', message: 'Cannot be blank.' },
      })
    }
    const number = await sql({ query: 5 })
    expect(number.body).toMatchObject({
      message: 'An error occurred while loading the submitted data.',
      data: {},
    })
    expect((await sql({ query: '   ' })).body.message).toBe(
      'Failed to execute query. Raw error:\nempty query.',
    )
    const bad = await sql({ query: 'select * from nope_table' })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/^Failed to execute query\. Raw error:\n.*nope_table.*\.$/)
    if (!pg) {
      expect(bad.body.message).toBe(
        'Failed to execute query. Raw error:\nSQL logic error: no such table: nope_table (1).',
      )
    }
  })

  it('answers the backups errors as PocketBase does', async () => {
    // Download: no token, or a bearer header only, is 403; a missing archive 404.
    const noToken = await t.api('GET', '/api/backups/nope.zip')
    expect(noToken.status).toBe(403)
    expect(noToken.body.message).toBe('Insufficient permissions to access the resource.')
    expect((await t.api('GET', '/api/backups/nope.zip', { token: su() })).status).toBe(403)
    const fileToken = (await t.api('POST', '/api/files/token', { token: su() })).body.token
    const missing = await t.api('GET', `/api/backups/nope.zip?token=${fileToken}`)
    expect(missing.status).toBe(404)
    expect(missing.body.message).toBe("The requested resource wasn't found.")
    // Names.
    const created = await t.api('POST', '/api/backups', { token: su(), body: { name: 'pb_1.zip' } })
    expect(created.status).toBe(204)
    const duplicate = await t.api('POST', '/api/backups', {
      token: su(),
      body: { name: 'pb_1.zip' },
    })
    expect(duplicate.body).toMatchObject({
      message: 'An error occurred while validating the submitted data.',
      data: {
        name: {
          code: 'validation_backup_name_exists',
          message: 'The backup file name is invalid or already exists.',
        },
      },
    })
    const long = await t.api('POST', '/api/backups', {
      token: su(),
      body: { name: `${'a'.repeat(200)}.zip` },
    })
    expect(long.body.data.name).toEqual({
      code: 'validation_length_out_of_range',
      message: 'The length must be between 1 and 150.',
      params: { min: 1, max: 150 },
    })
    const format = await t.api('POST', '/api/backups', { token: su(), body: { name: 'Bad.zip' } })
    expect(format.body.message).toBe('An error occurred while validating the submitted data.')
    expect(format.body.data.name.code).toBe('validation_match_invalid')
    const number = await t.api('POST', '/api/backups', { token: su(), body: { name: 5 } })
    expect(number.body).toMatchObject({
      message: 'An error occurred while loading the submitted data.',
      data: {},
    })
    // Uploads: every refusal at data.file.
    const none = await t.api('POST', '/api/backups/upload', { token: su(), body: { file: 'x' } })
    expect(none.body.data).toEqual({
      file: { code: 'validation_required', message: 'Cannot be blank.' },
    })
    const text = await upload('text.zip', Buffer.from('hello'))
    expect(text.body.data).toEqual({
      file: {
        code: 'validation_invalid_mime_type',
        message: '"text.zip" mime type must be one of: application/zip.',
      },
    })
    const cut = await upload('cut.zip', Buffer.from('PK\x03\x04junkjunkjunk', 'latin1'))
    expect(cut.status).toBe(400)
    expect(cut.body.data.file.code).toBe('validation_invalid_value')
    expect((await upload('up.zip', REAL_ZIP)).status).toBe(204)
    const again = await upload('up.zip', REAL_ZIP)
    expect(again.body.data).toEqual({
      file: {
        code: 'validation_backup_name_exists',
        message: 'Backup file with the specified name already exists.',
      },
    })
    const gone = await t.api('DELETE', '/api/backups/nope.zip', { token: su() })
    expect(gone.status).toBe(400)
    expect(gone.body.message).toBe('Invalid or already deleted backup file.')
    for (const key of ['pb_1.zip', 'up.zip']) {
      expect((await t.api('DELETE', `/api/backups/${key}`, { token: su() })).status).toBe(204)
    }
  })
})

// SQLite only: PocketBase's values and declared types are SQLite's (PostgreSQL's are its own).
describe('PocketBase’s POST /api/sql on SQLite', () => {
  let t: TestServer
  const sql = (body: unknown) => t.api('POST', '/api/sql', { token: t.suToken, body })
  beforeAll(async () => {
    t = await startOn(false)
  })
  afterAll(() => t.close())

  it('answers SQLite values and declared types as PocketBase prints them', async () => {
    await sql({ query: 'create table tmp_types (id integer primary key, v text, r real)' })
    await sql({ query: "insert into tmp_types (v, r) values ('a', 2.0)" })
    const typed = await sql({ query: 'select id, v, r from tmp_types' })
    expect(typed.body.columns).toEqual([
      { name: 'id', type: 'INTEGER', nullable: true },
      { name: 'v', type: 'TEXT', nullable: true },
      { name: 'r', type: 'REAL', nullable: true },
    ])
    expect(typed.body.rows).toEqual([['1', 'a', '2']])
    const values = await sql({
      query:
        "select 9223372036854775807, x'41', 1e300, 0.1, 1e-7, 123456789012.5, 123456.5, 1234567.0",
    })
    expect(values.body.rows).toEqual([
      [
        '9223372036854775807',
        'A',
        '1e+300',
        '0.1',
        '1e-07',
        '1.234567890125e+11',
        '123456.5',
        '1.234567e+06',
      ],
    ])
    const notNull = await sql({ query: 'insert into tmp_types (id, v) values (1, null)' })
    expect(notNull.body.message).toBe(
      'Failed to execute query. Raw error:\nconstraint failed: UNIQUE constraint failed: tmp_types.id (1555).',
    )
    await sql({ query: 'drop table tmp_types' })
  })
})
