/**
 * The code of the synchronous reader's worker thread (see `sync-reads.ts`), kept as a string so
 * it runs the same from `dist/` and under tsx or vitest (as the SQLite background writer's).
 *
 * It holds one `pg` connection of its own, opened on the first query and again after it broke,
 * and answers each query posted on its port: the rows as arrays of the server's raw text values
 * with each column's name and type OID (the calling thread parses them with the pool's own type
 * parsers), or the driver error's fields. After posting an answer it bumps the shared counter
 * (`signal[0]`) and wakes the calling thread, which is blocked in `Atomics.wait` on it. If the
 * thread fails or exits, it says so on the port, sets `signal[1]` and wakes the caller, so a
 * read never waits on a thread that is gone.
 */
export const SYNC_READS_WORKER_SOURCE = `
const { workerData } = require('node:worker_threads')
const { signal, port, config } = workerData

const wake = () => {
  Atomics.add(signal, 0, 1)
  Atomics.notify(signal, 0)
}

let stopped = false
const stop = (reason) => {
  if (stopped) return
  stopped = true
  try {
    port.postMessage({ id: -1, dead: String(reason) })
  } catch {}
  Atomics.store(signal, 1, 1)
  wake()
}
process.on('uncaughtException', (err) => {
  stop(err && err.message ? err.message : err)
  process.exit(1)
})
process.on('exit', (code) => stop('the thread exited with code ' + code))
const pg = require(workerData.driver)

// Every value comes back as the server's text: the calling thread parses it.
const raw = { getTypeParser: () => (v) => v }
let client = null
const connect = async () => {
  if (client) return client
  const c = new pg.Client({ ...config, types: raw })
  c.on('error', () => {
    if (client === c) client = null
  })
  c.on('end', () => {
    if (client === c) client = null
  })
  try {
    await c.connect()
  } catch (err) {
    c.end().catch(() => {})
    throw err
  }
  client = c
  return c
}

// Structured cloning turns a Buffer into a plain Uint8Array, which pg would send as JSON.
const bindable = (v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v) : v)

const errorFields = (err) => {
  const out = { message: String(err && err.message !== undefined ? err.message : err) }
  for (const k of ['code', 'table', 'detail', 'constraint', 'column', 'schema', 'severity']) {
    if (err && typeof err[k] === 'string') out[k] = err[k]
  }
  return out
}

port.on('message', async (msg) => {
  if (msg.type === 'close') {
    const c = client
    client = null
    if (c) await c.end().catch(() => {})
    port.close()
    return
  }
  let answer
  try {
    const query = { text: msg.sql, values: msg.params.map(bindable), rowMode: 'array' }
    const c = await connect()
    let r
    try {
      r = await c.query(query)
    } catch (err) {
      // A connection the server dropped since the last read (a restart, an idle timeout): the
      // read runs again once on a new one. An error of the statement itself is the answer.
      if (err && typeof err.code === 'string' && !err.code.startsWith('57P')) throw err
      if (client === c) client = null
      c.end().catch(() => {})
      r = await (await connect()).query(query)
    }
    answer = {
      id: msg.id,
      fields: r.fields.map((f) => ({ name: f.name, oid: f.dataTypeID })),
      rows: r.rows,
    }
  } catch (err) {
    answer = { id: msg.id, error: errorFields(err) }
  }
  port.postMessage(answer)
  wake()
})
`
