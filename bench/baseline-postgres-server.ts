/**
 * The bare-stack baseline on PostgreSQL: plain Fastify + a `pg` pool over a copy of the tables
 * svcbase wrote (schema `baseline` of the same database), with none of svcbase's logic. svcbase's
 * PostgreSQL rows read as a ratio to it, as its SQLite rows read as a ratio to
 * `baseline-server.ts`.
 *
 * Usage: `node --import tsx bench/baseline-postgres-server.ts --url=postgres://… --tables=a,b [--http=127.0.0.1:0]`
 *
 * - `GET /posts/:table/:id`: one row by id
 * - `GET /posts/:table?limit=20[&total=1]`: the newest rows by `created DESC`; with `total=1`
 *   also `SELECT COUNT(*)` of the table as `totalItems` (what a list with its total costs)
 * - `POST /posts/:table` `{title, description, status, author, editors}`: inserts one row
 */
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { newId, nowDate, type PostBody } from './baseline-shared.js'
import pg from 'pg'

function main(): Promise<string> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      tables: { type: 'string', default: '' },
      http: { type: 'string', default: '127.0.0.1:0' },
    },
  })
  if (!values.url) throw new Error('--url is required')
  // The same pool size as svcbase's PostgreSQL store; JSON read as text, as svcbase reads it.
  const pool = new pg.Pool({
    connectionString: values.url,
    max: 10,
    options: '-c search_path=baseline',
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === 3802 || oid === 114
          ? (v: string) => v
          : (pg.types.getTypeParser(oid, format) as (v: string) => unknown),
    },
  })
  const tables = new Set(values.tables.split(',').filter((t) => /^\w+$/.test(t)))

  const http = Fastify({ logger: false })
  http.get<{ Params: { table: string; id: string } }>('/posts/:table/:id', async (req, reply) => {
    if (!tables.has(req.params.table)) return reply.code(404).send({ message: 'not found' })
    const r = await pool.query(`SELECT * FROM "${req.params.table}" WHERE id = $1`, [req.params.id])
    if (r.rows.length === 0) return reply.code(404).send({ message: 'not found' })
    return r.rows[0] as unknown
  })
  http.get<{ Params: { table: string }; Querystring: { limit?: string; total?: string } }>(
    '/posts/:table',
    async (req, reply) => {
      if (!tables.has(req.params.table)) return reply.code(404).send({ message: 'not found' })
      const limit = Math.min(Math.max(Number(req.query.limit ?? 20) || 20, 1), 500)
      const r = await pool.query(
        `SELECT * FROM "${req.params.table}" ORDER BY created DESC LIMIT $1`,
        [limit],
      )
      if (req.query.total !== '1') return { items: r.rows as unknown[] }
      const c = await pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "${req.params.table}"`)
      return { items: r.rows as unknown[], totalItems: Number(c.rows[0]!.n) }
    },
  )
  http.post<{ Params: { table: string }; Body: PostBody }>('/posts/:table', async (req, reply) => {
    if (!tables.has(req.params.table)) return reply.code(404).send({ message: 'not found' })
    const b = req.body
    const now = nowDate()
    const r = await pool.query(
      `INSERT INTO "${req.params.table}" (id, title, description, status, author, editors, created, updated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [
        newId(),
        String(b.title ?? ''),
        String(b.description ?? ''),
        String(b.status ?? ''),
        String(b.author ?? ''),
        JSON.stringify(b.editors ?? []),
        now,
        now,
      ],
    )
    return r.rows[0] as unknown
  })

  const stop = () => {
    http
      .close()
      .then(() => pool.end())
      .then(
        () => process.exit(0),
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
