/**
 * The rewrite both stores give view queries: double-quoted tokens that name no column become
 * string literals, as PocketBase's SQLite (double-quoted strings enabled) reads them. Each engine
 * says which column it found unknown in its own words (`unknownColumn` reads it off an error
 * message); a token is rewritten only when the engine names it so, and a rewritten one that also
 * works as an identifier is put back, so a query that runs as written is returned unchanged.
 */
import type { Db } from './db.js'
import { raw } from './sql.js'
import { tokenizeSql, type SqlToken } from '../tools/sql-tokens.js'

/** Rewrites the double-quoted strings of `query` that the engine reads as unknown columns. */
export async function rewriteQuotedStrings(
  db: Db,
  query: string,
  unknownColumn: (message: string) => string | undefined,
): Promise<string> {
  let tokens: SqlToken[] | null = null
  const replaced = new Set<SqlToken>()
  const build = (set: ReadonlySet<SqlToken>): string => {
    let out = ''
    let at = 0
    for (const t of tokens ?? []) {
      if (!set.has(t)) continue
      out += `${query.slice(at, t.start)}'${t.value.replaceAll("'", "''")}'`
      at = t.end
    }
    return out + query.slice(at)
  }
  const runs = async (text: string): Promise<Error | null> =>
    db.describe(raw(text)).then(
      () => null,
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    )
  for (;;) {
    const err = await runs(build(replaced))
    if (err === null) break
    const name = unknownColumn(err.message)
    if (name === undefined) throw err
    try {
      tokens ??= tokenizeSql(query)
    } catch {
      throw err
    }
    const found = tokens.filter(
      (t) => t.kind === 'quoted' && t.quote === '"' && t.value === name && !replaced.has(t),
    )
    if (found.length === 0) throw err
    for (const t of found) replaced.add(t)
  }
  // A name can be a literal in one place and a column in another: keep only the needed rewrites.
  for (const t of [...replaced]) {
    if (!tokens?.some((o) => o !== t && replaced.has(o) && o.value === t.value)) continue
    const without = new Set(replaced)
    without.delete(t)
    if ((await runs(build(without))) === null) replaced.delete(t)
  }
  return build(replaced)
}
