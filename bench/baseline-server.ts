/**
 * The bare-stack baseline: plain Fastify + better-sqlite3 over a copy of the tables svcbase
 * wrote, with none of svcbase's logic (no rules, validation, hooks, events or request log). It
 * bounds what the stack itself can do on this machine, so svcbase's figures read as a ratio.
 *
 * Usage: `node --import tsx bench/baseline-server.ts --db=FILE --tables=a,b [--http=127.0.0.1:0]`
 *
 * - `GET /posts/:table/:id`: one row by id
 * - `GET /posts/:table?limit=20[&total=1]`: the newest rows by `created DESC`; with `total=1`
 *   also `SELECT COUNT(*)` of the table as `totalItems` (what a list with its total costs)
 * - `POST /posts/:table` `{title, description, status, author, editors}`: inserts one row
 */
import { parseArgs } from 'node:util'
import Database from 'better-sqlite3'
import Fastify from 'fastify'
import { newId, nowDate, type PostBody } from './baseline-shared.js'

interface TableStatements {
  byId: Database.Statement
  list: Database.Statement
  count: Database.Statement
  insert: Database.Statement
}

function prepareTable(db: Database.Database, table: string): TableStatements {
  if (!/^\w+$/.test(table)) throw new Error(`invalid table name ${table}`)
  return {
    byId: db.prepare(`SELECT * FROM "${table}" WHERE id = ?`),
    list: db.prepare(`SELECT * FROM "${table}" ORDER BY created DESC LIMIT ?`),
    count: db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`),
    insert: db.prepare(
      `INSERT INTO "${table}" (id, title, description, status, author, editors, created, updated)
       VALUES (@id, @title, @description, @status, @author, @editors, @created, @updated)
       RETURNING *`,
    ),
  }
}

function main(): Promise<string> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      tables: { type: 'string', default: '' },
      http: { type: 'string', default: '127.0.0.1:0' },
    },
  })
  if (!values.db) throw new Error('--db is required')
  // The same pragmas as svcbase's connections (src/store/sqlite/database.ts).
  const db = new Database(values.db)
  db.pragma('busy_timeout = 10000')
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('temp_store = MEMORY')
  db.pragma('cache_size = -16000')
  const tables = new Map<string, TableStatements>()
  for (const t of values.tables.split(',').filter(Boolean)) tables.set(t, prepareTable(db, t))

  const http = Fastify({ logger: false })
  http.get<{ Params: { table: string; id: string } }>('/posts/:table/:id', async (req, reply) => {
    const row = tables.get(req.params.table)?.byId.get(req.params.id)
    if (!row) return reply.code(404).send({ message: 'not found' })
    return row
  })
  http.get<{ Params: { table: string }; Querystring: { limit?: string; total?: string } }>(
    '/posts/:table',
    async (req, reply) => {
      const t = tables.get(req.params.table)
      if (!t) return reply.code(404).send({ message: 'not found' })
      const limit = Math.min(Math.max(Number(req.query.limit ?? 20) || 20, 1), 500)
      const items = t.list.all(limit)
      if (req.query.total !== '1') return { items }
      return { items, totalItems: (t.count.get() as { n: number }).n }
    },
  )
  http.post<{ Params: { table: string }; Body: PostBody }>('/posts/:table', async (req, reply) => {
    const t = tables.get(req.params.table)
    if (!t) return reply.code(404).send({ message: 'not found' })
    const b = req.body
    const now = nowDate()
    return t.insert.get({
      id: newId(),
      title: String(b.title ?? ''),
      description: String(b.description ?? ''),
      status: String(b.status ?? ''),
      author: String(b.author ?? ''),
      editors: JSON.stringify(b.editors ?? []),
      created: now,
      updated: now,
    })
  })

  const stop = () => {
    http.close().then(
      () => {
        db.close()
        process.exit(0)
      },
      () => process.exit(1),
    )
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  const i = values.http.lastIndexOf(':')
  return http.listen({ host: values.http.slice(0, i), port: Number(values.http.slice(i + 1)) })
}

main().then(
  (address) => console.log(`baseline listening ${address}`),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)
