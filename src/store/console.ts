/**
 * The contract of the SQL console (`Store.console`): one statement of SQL text typed by a
 * superuser, run by the engine on a connection of its own that can be really cancelled.
 */

/** What the console runs, and within which limits. */
export interface ConsoleRequest {
  /** One statement of SQL text, sent to the engine as written. */
  sql: string
  /**
   * False: on a read-only connection (the engine refuses any write, whatever the text says).
   * True: as a writer, serialised with the app's transactions.
   */
  write: boolean
  /** Rows returned at most by a read; one more is read to know whether the result was cut. */
  maxRows: number
  /** Bytes of row values (as JSON) returned at most by a read; the rows past it are cut. */
  maxBytes: number
  /** The statement is cancelled (its connection killed, a write rolled back) after this long. */
  timeoutMs: number
  /**
   * Tables whose schema a write must not change (collection tables and svcbase's own): a
   * statement that creates, alters or drops one of them, or an index, trigger or view on one,
   * is rolled back and refused with {@link ConsoleRefused}.
   */
  frozenSchema: readonly string[]
  /** Tables whose rows a write must not change (svcbase's own bookkeeping). */
  readOnlyTables: readonly string[]
  /**
   * Also answer a read as PocketBase's `POST /api/sql` does ({@link ConsoleRead.text}). An engine
   * may leave it out; the caller then derives it from `columns` and `rows`.
   */
  text?: boolean
}

/** A read as PocketBase answers it: every value as text (Go's formatting), NULL as null. */
export interface ConsoleText {
  /** The columns in order, names as the engine gives them (not made unique), declared types. */
  columns: Array<{ name: string; type: string }>
  rows: Array<Array<string | null>>
}

/** The answer of a read: the columns in order, the rows as objects, and whether rows were cut. */
export interface ConsoleRead {
  kind: 'read'
  columns: string[]
  rows: Record<string, unknown>[]
  truncated: boolean
  /** The read as text, when `text` was asked and the engine gives it (`rows` is then empty). */
  text?: ConsoleText
  /** How long the statement ran, in milliseconds, when the engine measures it (with `text`). */
  elapsedMs?: number
}

/** The answer of a write: the rows it changed, and whether the schema changed. */
export interface ConsoleWrite {
  kind: 'write'
  rowsAffected: number
  schemaChanged: boolean
  /** How long the statement ran, in milliseconds, when the engine measures it (with `text`). */
  elapsedMs?: number
}

export type ConsoleResult = ConsoleRead | ConsoleWrite

/** The statement ran longer than `timeoutMs` and was cancelled (a write is rolled back). */
export class ConsoleTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the statement was cancelled after ${timeoutMs} ms`)
    this.name = 'ConsoleTimeout'
  }
}

/**
 * A write that would change what the console must leave alone (see `frozenSchema` and
 * `readOnlyTables`); it was rolled back. `table` names the first one touched.
 */
export class ConsoleRefused extends Error {
  constructor(
    readonly reason: 'schema' | 'rows',
    readonly table: string,
  ) {
    super(`the statement would change the ${reason === 'schema' ? 'schema' : 'rows'} of ${table}`)
    this.name = 'ConsoleRefused'
  }
}

/**
 * The statement's process ended without an answer (out of memory, killed from outside).
 * `reason` is a short public phrase; `detail` what the process printed, for the server log.
 */
export class ConsoleCrashed extends Error {
  constructor(
    readonly reason: string,
    readonly detail: string,
  ) {
    super(reason)
    this.name = 'ConsoleCrashed'
  }
}

/**
 * The text after leading blanks, comments and empty statements (`;`, which SQLite skips),
 * upper-cased (what the prefix checks look at).
 */
export function consoleHead(text: string): string {
  let s = text
  for (;;) {
    const next = s
      .replace(/^[\s;]+/, '')
      .replace(/^--[^\n]*(\n|$)/, '')
      .replace(/^\/\*[\s\S]*?\*\//, '')
    if (next === s) return s.toUpperCase()
    s = next
  }
}

/**
 * A PRAGMA the engine's console does not run (an allow-list: a PRAGMA can corrupt the database or
 * change it for the app). `name` is the PRAGMA's, `allowed` the list, for the message.
 */
export class ConsolePragmaRefused extends Error {
  constructor(
    readonly pragma: string,
    readonly allowed: string,
  ) {
    super(`the console does not run PRAGMA ${pragma}`)
    this.name = 'ConsolePragmaRefused'
  }
}
