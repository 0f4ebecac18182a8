/**
 * A transaction's `BEGIN` sent in the same write as its first statement, so opening a
 * transaction costs no round trip of its own.
 *
 * The two go as one extended-protocol sequence with a single `Sync` at the end: Parse, Bind and
 * Execute of `BEGIN …`, then the statement's Parse, Bind, Describe, Execute and Sync. PostgreSQL
 * runs them in order; an error in `BEGIN` makes it skip the statement (everything up to the
 * `Sync` is discarded), so the statement never runs outside the transaction. The server answers
 * both before one ReadyForQuery, and `pg`'s `Query` collects them as two results (as it does for
 * a multi-statement query): the statement's is the last.
 */
import pg from 'pg'

/** The part of `pg`'s connection a query writes to (its `Connection`, typed loosely by @types/pg). */
interface Wire {
  stream: { cork?: () => void; uncork?: () => void }
  parse(query: { text: string; name: string; types: unknown[] }): void
  bind(config: { portal: string; statement: string; values: unknown[] }): void
  execute(config: { portal: string; rows: number }): void
}

/** A query that sends `begin` ahead of itself, in the same write and the same sync. */
class BeginThenQuery extends pg.Query {
  constructor(
    private readonly begin: string,
    config: pg.QueryConfig,
    callback: (err: Error | undefined, result: unknown) => void,
  ) {
    super({ ...config, queryMode: 'extended' } as pg.QueryConfig, undefined, callback)
    const submit = this.submit.bind(this) as (connection: unknown) => unknown
    this.submit = (connection: pg.Connection) => {
      const wire = connection as unknown as Wire
      wire.stream.cork?.()
      try {
        wire.parse({ text: this.begin, name: '', types: [] })
        wire.bind({ portal: '', statement: '', values: [] })
        wire.execute({ portal: '', rows: 0 })
        return submit(connection)
      } finally {
        wire.stream.uncork?.()
      }
    }
  }
}

/**
 * Runs `begin` (a `BEGIN …` without parameters) then `text` on `client` in one round trip and
 * returns the statement's result. Rejects with the driver's error when either fails.
 */
export function beginThen<T extends pg.QueryResultRow>(
  client: pg.PoolClient,
  begin: string,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<T>> {
  return new Promise((resolve, reject) => {
    const query = new BeginThenQuery(begin, { text, values }, (err, result) => {
      if (err) return reject(err)
      const all = (Array.isArray(result) ? result : [result]) as Array<pg.QueryResult<T>>
      resolve(all[all.length - 1]!)
    })
    void client.query(query)
  })
}
