/**
 * The contract of `tx-sync-reads.ts` and `pipeline.ts` with the `pg` driver: the first writes the
 * wire protocol to a transaction's socket itself, through `pg`'s private fields and module paths;
 * the second writes a round trip's messages itself from a `pg.Query`'s `prepare`. This pins them to
 * the `pg` version they were checked against (`PG_INTERNALS_VERIFIED`) and checks each one on a
 * live client of the test server (`SVC_TEST_PG_URL`), so an upgrade of `pg` fails here first.
 */
import { createRequire } from 'node:module'
import net from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  idle,
  loadProtocol,
  PG_INTERNALS_VERIFIED,
  socketFd,
  type ClientInternals,
} from './tx-sync-reads.js'

const url = process.env.SVC_TEST_PG_URL
if (!url) throw new Error('SVC_TEST_PG_URL is not set: the PostgreSQL tests need the test setup')

describe("pg's internals that synchronous reads in a transaction use", () => {
  const pool = new pg.Pool({ connectionString: url, max: 1 })
  let client: pg.PoolClient
  beforeAll(async () => {
    client = await pool.connect()
  })
  afterAll(async () => {
    client.release()
    await pool.end()
  })

  it(`is the pg version they were checked against (${PG_INTERNALS_VERIFIED})`, () => {
    const installed = (createRequire(import.meta.url)('pg/package.json') as { version: string })
      .version
    // Another version: check ClientInternals, socketFd, idle and loadProtocol against its
    // source, then update PG_INTERNALS_VERIFIED.
    expect(installed).toBe(PG_INTERNALS_VERIFIED)
  })

  it("finds pg-protocol's serializer and parser and pg's prepareValue through pg's path", () => {
    const p = loadProtocol()
    expect(typeof p.serialize.parse).toBe('function')
    expect(typeof p.serialize.sync).toBe('function')
    expect(typeof p.Parser).toBe('function')
    expect(p.prepareValue(new Date(0))).toMatch(/^1970-01-01/)
    const messages: string[] = []
    new p.Parser().parse(Buffer.from([0x5a, 0, 0, 0, 5, 0x49]), (m) => messages.push(m.name))
    expect(messages).toEqual(['readyForQuery'])
  })

  it("reads the socket's descriptor and the client's idle state from its private fields", async () => {
    const c = client as unknown as ClientInternals
    expect(c.connection?.stream).toBeInstanceOf(net.Socket)
    expect(socketFd(client)).toBeGreaterThanOrEqual(0)
    expect(Array.isArray(c._queryQueue)).toBe(true)
    expect(Array.isArray(c._sentQueryQueue)).toBe(true)
    expect(c._ending).toBe(false)
    expect(idle(client)).toBe(true)
    const running = client.query('SELECT pg_sleep(0.2)')
    // A statement in flight: not idle, by readyForQuery and the active query.
    expect(c.readyForQuery).toBe(false)
    expect(c._activeQuery).toBeTruthy()
    expect(idle(client)).toBe(false)
    await running
    expect(idle(client)).toBe(true)
  })

  it('sees a client that is ending as not idle', async () => {
    const other = new pg.Client({ connectionString: url })
    await other.connect()
    const ended = other.end()
    expect((other as unknown as ClientInternals)._ending).toBe(true)
    expect(idle(other as unknown as pg.PoolClient)).toBe(false)
    await ended
  })

  it('lets a query write its own extended-protocol messages from prepare (pipeline.ts)', async () => {
    const query = pg.Query.prototype as unknown as Record<string, unknown>
    expect(typeof query.prepare).toBe('function')
    expect(typeof query.handleError).toBe('function')
    const connection = (client as unknown as ClientInternals).connection as unknown as Record<
      string,
      unknown
    >
    for (const m of ['parse', 'bind', 'describe', 'execute', 'close', 'sync'])
      expect(typeof connection[m]).toBe('function')
    // A query in the extended mode is prepared (written by `prepare`) even without values.
    const extended = new pg.Query('SELECT 1')
    ;(extended as unknown as { queryMode: string }).queryMode = 'extended'
    expect((extended as unknown as { requiresPreparation(): boolean }).requiresPreparation()).toBe(
      true,
    )
  })
})
