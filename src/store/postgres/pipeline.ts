/**
 * Statements of a transaction sent ahead of another in the same write, so they cost no round
 * trip of their own: its `BEGIN`, and writes whose results nobody reads (`Db.runLater`, e.g. an
 * audit row), sent with the transaction's next statement or with its `COMMIT`.
 *
 * They all go as one extended-protocol sequence with a single `Sync` at the end: Parse, Bind,
 * Describe and Execute of each statement, then Sync. PostgreSQL runs them in order; an error in one makes it skip the rest (everything up to
 * the `Sync` is discarded), so no statement runs after a failed one, nor outside the
 * transaction when `BEGIN` failed. The server answers them all before one ReadyForQuery, and
 * `pg`'s `Query` collects them as several results (as it does for a multi-statement query): the
 * last statement's is the last.
 */
import pg from 'pg'
import type { CompiledQuery } from '../sql.js'

/** The part of `pg`'s connection a query writes to (its `Connection`, typed loosely by @types/pg). */
interface Wire {
  stream: { cork?: () => void; uncork?: () => void }
  parse(query: { text: string; name: string; types: unknown[] }): void
  bind(config: {
    portal: string
    statement: string
    values: readonly unknown[]
    valueMapper?: (value: unknown) => unknown
  }): void
  describe(config: { type: 'P'; name: string }): void
  execute(config: { portal: string; rows: number }): void
}

/** pg's own mapping of a parameter to its wire form (`utils.prepareValue`), as its queries use. */
const prepareValue = (pg as unknown as { utils: { prepareValue: (v: unknown) => unknown } }).utils
  .prepareValue

/** A query that sends `ahead` in front of itself, in the same write and the same sync. */
class PipelinedQuery extends pg.Query {
  constructor(
    private readonly ahead: readonly CompiledQuery[],
    config: pg.QueryConfig,
    callback: (err: Error | undefined, result: unknown) => void,
  ) {
    super({ ...config, queryMode: 'extended' } as pg.QueryConfig, undefined, callback)
    const submit = this.submit.bind(this) as (connection: unknown) => unknown
    this.submit = (connection: pg.Connection) => {
      const wire = connection as unknown as Wire
      wire.stream.cork?.()
      try {
        for (const q of this.ahead) {
          wire.parse({ text: q.sql, name: '', types: [] })
          wire.bind({ portal: '', statement: '', values: q.params, valueMapper: prepareValue })
          // NB: described, so rows it returns come with their description (pg parses them).
          wire.describe({ type: 'P', name: '' })
          wire.execute({ portal: '', rows: 0 })
        }
        return submit(connection)
      } finally {
        wire.stream.uncork?.()
      }
    }
  }
}

/**
 * Runs the statements `ahead` then `text` on `client` in one round trip and returns the last
 * statement's result. Rejects with the driver's error when any of them fails.
 */
export function pipelined<T extends pg.QueryResultRow>(
  client: pg.PoolClient,
  ahead: readonly CompiledQuery[],
  text: string,
  values: readonly unknown[],
): Promise<pg.QueryResult<T>> {
  if (ahead.length === 0) return client.query<T>(text, values as unknown[])
  return new Promise((resolve, reject) => {
    const query = new PipelinedQuery(
      ahead,
      { text, values: values as unknown[] },
      (err, result) => {
        if (err) return reject(err)
        const all = (Array.isArray(result) ? result : [result]) as Array<pg.QueryResult<T>>
        resolve(all[all.length - 1]!)
      },
    )
    void client.query(query)
  })
}
