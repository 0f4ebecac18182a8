/**
 * The statement cache of svcbase's SQLite worker threads (the background writer, the reader
 * threads), as source text put into their code: `prepare(text)` keeps up to 200 statements of
 * the thread's connection `db`, then starts over.
 */
export const WORKER_STATEMENT_CACHE = `
const cache = new Map()
const prepare = (text) => {
  let stmt = cache.get(text)
  if (!stmt) {
    stmt = db.prepare(text)
    if (cache.size > 200) cache.clear()
    cache.set(text, stmt)
  }
  return stmt
}
`
