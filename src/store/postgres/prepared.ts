/**
 * Named prepared statements for the statements this process runs again and again (a create's
 * checked `INSERT`, its audit row, a view's `SELECT`, `BEGIN`, `COMMIT`): PostgreSQL parses and
 * analyses a named statement once per connection and, after a few runs, keeps a generic plan,
 * where an unnamed one is parsed, analysed and planned on every run. On the 2-core bench machine
 * that was 240 µs of server CPU per run of a create's checked `INSERT` unnamed against 80 µs
 * named (docs/benchmarks.md).
 *
 * - A text gets a name from its second run on (one-off statements, DDL and the like, stay
 *   unnamed), and at most `MAX_NAMES` texts get one; past that new texts run unnamed.
 * - Each connection keeps at most `MAX_PER_CONNECTION` prepared, the least recently used closed
 *   (a protocol `Close`, in the same write as the next statement) to make room.
 * - What a connection has prepared is only counted once the round trip that prepared it
 *   succeeded. A name a failed round trip may or may not have prepared (or closed) is in doubt:
 *   it is closed before the connection's next statement, and prepared again when next used
 *   (closing a statement the server does not have is no error).
 * - After a schema change of this process (`resetStatements`), and after a statement failed
 *   because its plan no longer matches a changed table (`isStalePlan`, a change made by another
 *   instance), every statement a connection prepared is in doubt, so none runs on an old plan.
 *   A transaction that failed so is run again (as a conflict), a single statement once.
 */
import type { CompiledQuery } from '../sql.js'

/** Statements one connection keeps prepared at most. */
export const MAX_PER_CONNECTION = 128

/** Distinct texts that get a name at most. */
const MAX_NAMES = 4096

/** Texts remembered as run once (for naming on the second run), forgotten all at once past it. */
const MAX_SEEN = 8192

/** How each statement of a round trip goes: by a name prepared or to prepare, or unnamed. */
export interface StatementPlan {
  /** The statement's name, or '' for the unnamed statement. */
  name: string
  /** Whether the round trip parses it (an unnamed one always is). */
  parse: boolean
}

/** What a round trip does to a connection's prepared statements, settled when it ends. */
export interface RoundTrip {
  statements: StatementPlan[]
  /** Names closed ahead of the statements. */
  close: string[]
  /** Names the round trip prepares. */
  prepared: string[]
}

/** The statements one connection has prepared, most recently used last. */
interface ConnectionStatements {
  ready: Set<string>
  doubt: Set<string>
  generation: number
}

/** Names statement texts and tracks what each connection has prepared. */
export class PreparedStatements {
  private readonly names = new Map<string, string>()
  private readonly seen = new Set<string>()
  private readonly connections = new WeakMap<object, ConnectionStatements>()
  private generation = 0

  constructor(private readonly enabled = true) {}

  /** The name `text` runs under, or undefined while it runs unnamed. */
  nameOf(text: string): string | undefined {
    const known = this.names.get(text)
    if (known !== undefined || !this.enabled || this.names.size >= MAX_NAMES) return known
    if (!this.seen.has(text)) {
      if (this.seen.size >= MAX_SEEN) this.seen.clear()
      this.seen.add(text)
      return undefined
    }
    this.seen.delete(text)
    const name = `svc_p${this.names.size + 1}`
    this.names.set(text, name)
    return name
  }

  /** Every connection's prepared statements are in doubt from its next round trip on. */
  reset(): void {
    this.generation++
  }

  /** Plans a round trip of `statements` on `connection` (`settle` it when it ends). */
  plan(connection: object, statements: readonly CompiledQuery[]): RoundTrip {
    const own = this.of(connection)
    const trip: RoundTrip = { statements: [], close: [...own.doubt], prepared: [] }
    for (const q of statements) {
      const name = this.nameOf(q.sql)
      if (name === undefined) {
        trip.statements.push({ name: '', parse: true })
      } else if (own.ready.has(name) || trip.prepared.includes(name)) {
        // NB: re-added, so the set's order stays least recently used first.
        own.ready.delete(name)
        own.ready.add(name)
        trip.statements.push({ name, parse: false })
      } else {
        trip.prepared.push(name)
        trip.statements.push({ name, parse: true })
      }
    }
    let over = own.ready.size + trip.prepared.length - MAX_PER_CONNECTION
    const used = new Set(trip.statements.map((s) => s.name))
    for (const name of own.ready) {
      if (over <= 0) break
      if (used.has(name)) continue
      trip.close.push(name)
      over--
    }
    return trip
  }

  /** Settles a round trip: what it prepared and closed is counted, or in doubt when it failed. */
  settle(connection: object, trip: RoundTrip, failure: unknown): void {
    const own = this.of(connection)
    if (failure === undefined) {
      for (const name of trip.close) {
        own.ready.delete(name)
        own.doubt.delete(name)
      }
      for (const name of trip.prepared) own.ready.add(name)
      return
    }
    for (const name of [...trip.close, ...trip.prepared]) {
      own.ready.delete(name)
      own.doubt.add(name)
    }
    // NB: every connection, since a table changed under all of them.
    if (isStalePlan(failure)) this.reset()
  }

  /** Names `connection` has prepared, for tests. */
  preparedOn(connection: object): string[] {
    return [...this.of(connection).ready]
  }

  private of(connection: object): ConnectionStatements {
    let own = this.connections.get(connection)
    if (!own) {
      own = { ready: new Set(), doubt: new Set(), generation: this.generation }
      this.connections.set(connection, own)
    }
    if (own.generation !== this.generation) {
      own.generation = this.generation
      this.doubtAll(own)
    }
    return own
  }

  private doubtAll(own: ConnectionStatements): void {
    for (const name of own.ready) own.doubt.add(name)
    own.ready.clear()
  }
}

/**
 * True for the error of a prepared statement whose result columns changed under it (a column
 * added, dropped or retyped since it was prepared): SQLSTATE 0A000 from the plan cache's
 * revalidation (by routine, as the message is translated).
 */
export function isStalePlan(err: unknown): boolean {
  const raw = (err as { cause?: unknown } | null)?.cause ?? err
  const e = raw as { code?: unknown; routine?: unknown } | null
  return e?.code === '0A000' && e.routine === 'RevalidateCachedQuery'
}
