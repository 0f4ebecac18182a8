import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * The worker's code, kept as a string so it runs the same from `dist/` and under tsx. It opens
 * its own read-only connection and runs one `VACUUM INTO`, which reads the whole database inside
 * one read transaction: in WAL mode writers go on meanwhile, and the copy holds exactly the
 * transactions committed when it started.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
let db
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true })
  db.pragma('busy_timeout = 10000')
  db.prepare('VACUUM INTO ?').run(workerData.target)
  parentPort.postMessage({ ok: true })
} catch (err) {
  parentPort.postMessage({ ok: false, error: String((err && err.message) || err) })
} finally {
  if (db) db.close()
}
`

/**
 * Writes a consistent copy of the committed state of the SQLite file `file` to `target` (which
 * must not exist), off the event loop. Unlike SQLite's page-by-page backup API, which starts
 * over whenever another connection writes, this finishes however busy the writers are.
 */
export function snapshotSqlite(file: string, target: string): Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, target, driver } })
  return new Promise<void>((resolve, reject) => {
    let answer: { ok: boolean; error?: string } | undefined
    worker.once('message', (msg: { ok: boolean; error?: string }) => (answer = msg))
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (answer?.ok) resolve()
      else reject(new Error(`snapshot of ${file} failed: ${answer?.error ?? `exit code ${code}`}`))
    })
  })
}
