/**
 * The round trip every statement with parameters (or with others ahead of it) takes: statements
 * of a transaction sent ahead of another in the same write, so they cost no round trip of their
 * own (its `BEGIN`, and writes whose results nobody reads, `Db.runLater`, e.g. an audit row, sent
 * with the transaction's next statement or with its `COMMIT`), each by a named prepared statement
 * once it has run before (`prepared.ts`).
 *
 * They all go as one extended-protocol sequence with a single `Sync` at the end: the `Close` of
 * statements a connection no longer keeps, then Parse (unless prepared already), Bind, Describe
 * and Execute of each statement, then Sync. PostgreSQL runs them in order; an error in one makes
 * it skip the rest (everything up to the `Sync` is discarded), so no statement runs after a
 * failed one, nor outside the transaction when `BEGIN` failed. The server answers them all before
 * one ReadyForQuery, and `pg`'s `Query` collects them as several results (as it does for a
 * multi-statement query): the last statement's is the last.
 */
import pg from 'pg'
import type { CompiledQuery } from '../sql.js'
import type { PreparedStatements, RoundTrip } from './prepared.js'

/** The part of `pg`'s connection a query writes to (its `Connection`, typed loosely by @types/pg). */
interface Wire {
  stream: { cork?: () => void; uncork?: () => void }
  parse(query: { text: string; name: string; types: unknown[] }): void
  bind(config: { portal: string; statement: string; values: readonly unknown[] }): void
  describe(config: { type: 'P'; name: string }): void
  execute(config: { portal: string; rows: number }): void
  close(config: { type: 'S'; name: string }): void
  sync(): void
}

/** pg's own mapping of a parameter to its wire form (`utils.prepareValue`), as its queries use. */
const prepareValue = (pg as unknown as { utils: { prepareValue: (v: unknown) => unknown } }).utils
  .prepareValue

/** `pg.Query`'s members a pipelined query uses (typed loosely by @types/pg). */
interface QueryInternals {
  handleError(err: unknown, connection: unknown): void
}

/** A query that sends `ahead` in front of itself, in the same write and the same sync. */
class PipelinedQuery extends pg.Query {
  private trip: RoundTrip | null = null
  private connection: object | null = null

  constructor(
    private readonly statements: readonly CompiledQuery[],
    private readonly prepared: PreparedStatements,
    callback: (err: Error | undefined, result: unknown) => void,
  ) {
    // NB: the text alone, as a config object pg copies property by property (2 % of a create's
    // CPU); the statements are written by `prepare`, always with the extended protocol.
    super(statements[statements.length - 1]!.sql, undefined, callback)
    ;(this as unknown as { queryMode: string }).queryMode = 'extended'
  }

  /** Settles what the round trip did to the connection's prepared statements, once. */
  settle(err: unknown): void {
    if (this.trip && this.connection) this.prepared.settle(this.connection, this.trip, err)
    this.trip = null
  }

  /** Writes the whole round trip (pg's `submit` calls it with the stream corked). */
  prepare(connection: pg.Connection): void {
    const wire = connection as unknown as Wire
    let values: unknown[][]
    try {
      // NB: every parameter mapped before anything is written: a value that cannot be sent
      // fails the query with nothing of it run.
      values = this.statements.map((q) => q.params.map((v) => prepareValue(v)))
    } catch (err) {
      wire.sync()
      ;(this as unknown as QueryInternals).handleError(err, connection)
      return
    }
    const trip = this.prepared.plan(connection, this.statements)
    this.trip = trip
    this.connection = connection
    for (const name of trip.close) wire.close({ type: 'S', name })
    this.statements.forEach((q, i) => {
      const { name, parse } = trip.statements[i]!
      if (parse) wire.parse({ text: q.sql, name, types: [] })
      wire.bind({ portal: '', statement: name, values: values[i]! })
      // NB: described, so rows it returns come with their description (pg parses them).
      wire.describe({ type: 'P', name: '' })
      wire.execute({ portal: '', rows: 0 })
    })
    wire.sync()
  }
}

/**
 * Runs the statements `ahead` then `text` on `client` in one round trip and returns the last
 * statement's result. Rejects with the driver's error when any of them fails. A lone statement
 * without parameters goes as a simple query (it may hold several statements).
 */
export function pipelined<T extends pg.QueryResultRow>(
  client: pg.PoolClient,
  prepared: PreparedStatements,
  ahead: readonly CompiledQuery[],
  text: string,
  values: readonly unknown[],
): Promise<pg.QueryResult<T>> {
  if (ahead.length === 0 && values.length === 0) return client.query<T>(text)
  return new Promise((resolve, reject) => {
    const query = new PipelinedQuery(
      [...ahead, { sql: text, params: values as unknown[] }],
      prepared,
      (err, result) => {
        query.settle(err ?? undefined)
        if (err) return reject(err)
        const all = (Array.isArray(result) ? result : [result]) as Array<pg.QueryResult<T>>
        resolve(all[all.length - 1]!)
      },
    )
    void client.query(query)
  })
}
