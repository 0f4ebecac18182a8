/**
 * Synchronous reads on the connection of an open transaction, so a `*.pb.js` find inside a write
 * transaction sees what that transaction wrote, as it does on SQLite. The transaction's
 * connection is idle while a script's handler runs (the transaction awaits the hook), so the
 * calling thread writes the query's protocol messages to the connection's socket itself and
 * reads until the server is ready again, with `fs.writeSync` / `fs.readSync` on the socket's
 * descriptor (non-blocking: polled with short `Atomics.wait` sleeps until the deadline). `pg`
 * never sees those bytes: its client is between two statements and stays there.
 *
 * The read runs inside a savepoint that is rolled back after it, with `SET LOCAL
 * statement_timeout` for it alone: an SQL error does not abort the transaction, and the setting does not outlive
 * the read. If the connection is not a plain socket (TLS, a native driver) or is busy, there is
 * no such reader and the caller falls back to the worker thread (committed data); so it does
 * while no transaction block is open on the server yet (nothing written: the same answer). Past the
 * deadline the socket is destroyed: the transaction fails rather than the process hanging.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import net from 'node:net'
import { performance } from 'node:perf_hooks'
import tls from 'node:tls'
import type pg from 'pg'
import { DbError, type Row } from '../db.js'
import type { CompiledQuery } from '../sql.js'
import { translatePgError } from './database.js'
import type { TypeParsers } from './sync-reads.js'

/** The parts of `pg-protocol` used here (pg's own copy, loaded through pg's path). */
interface Protocol {
  serialize: {
    parse(q: { text: string; types: number[] }): Buffer
    bind(b: { values: unknown[]; valueMapper: (v: unknown) => unknown }): Buffer
    describe(d: { type: 'P' }): Buffer
    execute(e: Record<string, never>): Buffer
    sync(): Buffer
  }
  Parser: new () => { parse(buffer: Buffer, callback: (msg: Message) => void): void }
  prepareValue: (v: unknown) => unknown
}

/** A backend message, as `pg-protocol` parses it. */
interface Message {
  name: string
  fields?: Array<{ name: string; dataTypeID: number }> | Array<string | null>
  status?: string
}

/**
 * The `pg` version whose private fields (`ClientInternals`) and module paths (`loadProtocol`)
 * this reader was checked against: `pg-internals.test.ts` fails on any other installed version
 * until they are checked again and this is updated.
 */
export const PG_INTERNALS_VERIFIED = '8.23.1'

let protocol: Protocol | null = null
/** `pg-protocol` and pg's `prepareValue`, resolved from the `pg` package in use. */
export function loadProtocol(): Protocol {
  if (protocol) return protocol
  const fromPg = createRequire(createRequire(import.meta.url).resolve('pg'))
  const { serialize } = fromPg('pg-protocol') as Pick<Protocol, 'serialize'>
  const { Parser } = fromPg('pg-protocol/dist/parser.js') as Pick<Protocol, 'Parser'>
  const { prepareValue } = fromPg('./utils.js') as Pick<Protocol, 'prepareValue'>
  protocol = { serialize, Parser, prepareValue }
  return protocol
}

/** The internals of a `pg` client this reader depends on (checked before each use). */
export interface ClientInternals {
  connection?: { stream?: unknown }
  readyForQuery?: boolean
  _activeQuery?: unknown
  _queryQueue?: unknown[]
  _sentQueryQueue?: unknown[]
  _ending?: boolean
}

/** The descriptor of a client's plain socket, or null (TLS, a native driver, closed). */
export function socketFd(client: pg.PoolClient): number | null {
  const stream = (client as unknown as ClientInternals).connection?.stream
  if (!(stream instanceof net.Socket) || stream instanceof tls.TLSSocket) return null
  if (stream.destroyed) return null
  const fd = (stream as unknown as { _handle?: { fd?: unknown } })._handle?.fd
  return typeof fd === 'number' && fd >= 0 ? fd : null
}

/** True when the client has no statement in flight or queued. */
export function idle(client: pg.PoolClient): boolean {
  const c = client as unknown as ClientInternals
  return (
    c.readyForQuery === true &&
    !c._activeQuery &&
    !c._ending &&
    (c._queryQueue?.length ?? 0) === 0 &&
    (c._sentQueryQueue?.length ?? 0) === 0
  )
}

const pause = new Int32Array(new SharedArrayBuffer(4))
/** Sleeps the calling thread for about `ms` milliseconds. */
const sleep = (ms: number): void => void Atomics.wait(pause, 0, 0, ms)

const wouldBlock = (err: unknown): boolean => {
  const code = (err as { code?: unknown }).code
  return code === 'EAGAIN' || code === 'EWOULDBLOCK'
}

/**
 * What the transaction has not sent yet: whether its block is open on the server (its `BEGIN`
 * sent), and its writes waiting (`Db.runLater`), taken with `BEGIN` in front when not sent.
 */
export interface Unsent {
  open(): boolean
  take(): CompiledQuery[]
}

/** Reads on one transaction's connection; `read` returns null when it cannot be used now. */
export interface ConnectionReader {
  /** With `unsent`, the transaction's writes waiting are sent first, so the read sees them. */
  read(query: CompiledQuery, unsent?: Unsent): Row[] | null
  /** The transaction ended: the reader refuses from now on (the connection goes back to the pool). */
  end(): void
}

/**
 * A reader on `client`, the connection of an open transaction, or null when its connection is
 * not a plain socket this thread can drive.
 */
export function connectionReader(
  client: pg.PoolClient,
  types: TypeParsers,
  statementTimeoutMs: number,
): ConnectionReader | null {
  if (socketFd(client) === null) return null
  let ended = false
  const waitMs = statementTimeoutMs + 2_000
  return {
    end: () => void (ended = true),
    read(query, unsent) {
      const fd = ended || !idle(client) ? null : socketFd(client)
      if (fd === null) return null
      // NB: pg's own status misses a BEGIN this reader sent: the transaction's word first.
      const status = client.getTransactionStatus()
      const open = unsent ? unsent.open() : status === 'T' || status === 'E'
      const ahead = unsent?.take() ?? []
      // No transaction block open on the server yet and nothing to write (the transaction has
      // sent nothing: `PgDb` begins with its first statement): committed data is what it would
      // read, the worker's.
      if (!open && ahead.length === 0) return null
      const p = loadProtocol()
      const deadline = performance.now() + waitMs
      const statement = (text: string): Buffer[] => [
        p.serialize.parse({ text, types: [] }),
        p.serialize.bind({ values: [], valueMapper: p.prepareValue }),
        p.serialize.execute({}),
      ]
      const round = (buffers: Buffer[]): Message[] => {
        send(client, fd, Buffer.concat([...buffers, p.serialize.sync()]), deadline)
        return receive(client, fd, new p.Parser(), deadline)
      }
      const messages = round([
        // The writes waiting (and BEGIN): a failure skips the rest and fails the transaction.
        ...ahead.flatMap((q) => [
          p.serialize.parse({ text: q.sql, types: [] }),
          p.serialize.bind({ values: [...q.params], valueMapper: p.prepareValue }),
          p.serialize.execute({}),
        ]),
        ...statement('SAVEPOINT svc_sync_read'),
        ...statement(
          `SET LOCAL statement_timeout = ${Math.max(1, Math.trunc(statementTimeoutMs))}`,
        ),
        p.serialize.parse({ text: query.sql, types: [] }),
        p.serialize.bind({ values: [...query.params], valueMapper: p.prepareValue }),
        p.serialize.describe({ type: 'P' }),
        p.serialize.execute({}),
        ...statement('ROLLBACK TO SAVEPOINT svc_sync_read'),
        ...statement('RELEASE SAVEPOINT svc_sync_read'),
      ])
      const error = messages.find((m) => m.name === 'error')
      if (error) {
        // The statements after the failed one were skipped: leave the savepoint now (fails
        // harmlessly when the savepoint itself failed, in a transaction aborted before).
        round([
          ...statement('ROLLBACK TO SAVEPOINT svc_sync_read'),
          ...statement('RELEASE SAVEPOINT svc_sync_read'),
        ])
        throw translatePgError(error)
      }
      return rowsOf(messages, types)
    },
  }
}

/** Writes `buffer` whole to the socket, waiting while it is full. */
function send(client: pg.PoolClient, fd: number, buffer: Buffer, deadline: number): void {
  let offset = 0
  while (offset < buffer.length) {
    try {
      offset += fs.writeSync(fd, buffer, offset)
    } catch (err) {
      if (!wouldBlock(err)) throw broken(client, err)
      if (performance.now() > deadline) throw timedOut(client)
      sleep(0.05)
    }
  }
}

/** Reads messages until the server is ready for the next query. */
function receive(
  client: pg.PoolClient,
  fd: number,
  parser: InstanceType<Protocol['Parser']>,
  deadline: number,
): Message[] {
  const messages: Message[] = []
  const chunk = Buffer.allocUnsafe(64 * 1024)
  let ready = false
  let idleFor = 0
  while (!ready) {
    let n: number
    try {
      n = fs.readSync(fd, chunk, 0, chunk.length, null)
    } catch (err) {
      if (!wouldBlock(err)) throw broken(client, err)
      if (performance.now() > deadline) throw timedOut(client)
      // Short sleeps first (a quick read costs ~0.1 ms), longer ones for a long read.
      sleep(Math.min(1, 0.05 * ++idleFor))
      continue
    }
    if (n === 0) throw broken(client, new Error('the server closed the connection'))
    idleFor = 0
    parser.parse(Buffer.from(chunk.subarray(0, n)), (m) => {
      // NB: what follows the ready message (a notice) is dropped: pg never saw the exchange.
      if (!ready) messages.push(m)
      if (m.name === 'readyForQuery') ready = true
    })
  }
  return messages
}

/** The rows of a read's messages, each value through the pool's parser of its type. */
function rowsOf(messages: Message[], types: TypeParsers): Row[] {
  // The query's own messages: from its description to its completion.
  const start = messages.findIndex((m) => m.name === 'rowDescription')
  if (start < 0) return []
  const fields = messages[start]!.fields as Array<{ name: string; dataTypeID: number }>
  const parsers = fields.map((f) => types.getTypeParser(f.dataTypeID, 'text'))
  const rows: Row[] = []
  for (const m of messages.slice(start + 1)) {
    if (m.name === 'commandComplete') break
    if (m.name !== 'dataRow') continue
    const values = m.fields as Array<string | null>
    const row: Row = {}
    for (let i = 0; i < fields.length; i++) {
      const v = values[i]
      row[fields[i]!.name] = v === null || v === undefined ? null : parsers[i]!(v)
    }
    rows.push(row)
  }
  return rows
}

/** The connection cannot be trusted any more: destroyed, so its transaction fails. */
function broken(client: pg.PoolClient, err: unknown): DbError {
  destroy(client)
  const message = err instanceof Error ? err.message : String(err)
  return new DbError(`a synchronous read in a transaction lost its connection: ${message}`, err)
}

function timedOut(client: pg.PoolClient): DbError {
  destroy(client)
  return new DbError(
    'a synchronous read in a transaction got no answer in time; the transaction was ended',
    null,
  )
}

function destroy(client: pg.PoolClient): void {
  const stream = (client as unknown as ClientInternals).connection?.stream
  if (stream instanceof net.Socket) stream.destroy()
}
