import { readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { refuseOtherEngine } from '../snapshot-engines.js'

/**
 * The worker's code, kept as a string so it runs the same from `dist/` and under tsx. It opens
 * one database file of a snapshot, runs `PRAGMA integrity_check` and, for `data.db`, looks for
 * svcbase's own tables: a foreign SQLite file is refused as surely as a corrupt one. Reading
 * the whole file takes a while on a large database, so it runs off the event loop.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
let db
const fail = (reason) => parentPort.postMessage({ ok: false, reason })
try {
  db = new Database(workerData.file, { fileMustExist: true })
  db.pragma('busy_timeout = 1000')
  const rows = db.prepare('PRAGMA integrity_check(5)').pluck().all()
  if (rows.length !== 1 || rows[0] !== 'ok') {
    fail('the integrity check failed: ' + rows.join('; '))
  } else if (workerData.main) {
    const tables = new Set(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all(),
    )
    const missing = workerData.tables.filter((t) => !tables.has(t))
    if (missing.length > 0) {
      fail('it is not a svcbase database (no ' + missing.join(', ') + ' table)')
    } else {
      const row = db
        .prepare('SELECT COUNT(*) FROM "_collections" WHERE "name" = ? AND "type" = ?')
        .pluck()
        .get('_superusers', 'auth')
      if (row !== 1 || !tables.has('_superusers')) fail('it is not a svcbase database (no _superusers collection)')
      else parentPort.postMessage({ ok: true })
    }
  } else {
    parentPort.postMessage({ ok: true })
  }
} catch (err) {
  fail(String((err && err.message) || err))
} finally {
  if (db) db.close()
}
`

/** The tables every svcbase `data.db` has (system tables and the superusers' collection). */
const OWN_TABLES = ['_collections', '_params', '_superusers']

/** Checks one file in a worker; resolves to null when it passes, else to the reason. */
function checkFile(file: string, main: boolean): Promise<string | null> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, main, tables: OWN_TABLES, driver },
  })
  return new Promise((resolve) => {
    let answer: { ok: boolean; reason?: string } | undefined
    worker.once('message', (msg: { ok: boolean; reason?: string }) => (answer = msg))
    worker.once('error', (err) => (answer = { ok: false, reason: err.message }))
    worker.once('exit', (code) => {
      if (answer?.ok) resolve(null)
      else resolve(answer?.reason ?? `the check stopped with exit code ${code}`)
    })
  })
}

/** A snapshot folder the store refuses, with the reason (for the client). */
export class SnapshotError extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'SnapshotError'
  }
}

/**
 * Checks a folder laid out as `backup(dir)` writes it (`data.db`, optionally `auxiliary.db`,
 * nothing else) before it replaces the live data: every file passes `PRAGMA integrity_check`
 * and `data.db` holds svcbase's own tables. Rejects with a `SnapshotError` naming the problem.
 */
export async function checkSqliteSnapshot(
  dir: string,
  fileNames: Readonly<Record<'main' | 'auxiliary', string>>,
): Promise<void> {
  const known = new Map(Object.entries(fileNames).map(([role, file]) => [file, role]))
  const present = readdirSync(dir)
  refuseOtherEngine(present, 'SQLite')
  for (const name of present) {
    if (!known.has(name)) throw new SnapshotError(`unexpected file "${name}" next to the databases`)
    if (!statSync(join(dir, name)).isFile()) throw new SnapshotError(`"${name}" is not a file`)
  }
  if (!present.includes(fileNames.main)) throw new SnapshotError(`no ${fileNames.main} in it`)
  for (const name of present) {
    const reason = await checkFile(join(dir, name), known.get(name) === 'main')
    if (reason) throw new SnapshotError(`${name}: ${reason}`)
  }
}
