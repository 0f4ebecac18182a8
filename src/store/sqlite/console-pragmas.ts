/** The PRAGMAs the SQLite console runs (see `console.ts`). */
import { consoleHead as head } from '../console.js'

/**
 * SQLite's PRAGMAs the console runs (a statement; the `pragma_*` table-valued functions are
 * read-only by SQLite's own rule and stay allowed): an allow-list, since a PRAGMA can corrupt the
 * database (`writable_schema`, `schema_version`), change it for every connection (`journal_mode`,
 * `page_size`, `auto_vacuum`) or take it from the app (`locking_mode`, `wal_checkpoint`).
 * Introspection PRAGMAs that take an object name as their argument.
 */
const PRAGMAS_WITH_ARGUMENT = [
  'foreign_key_check',
  'foreign_key_list',
  'index_info',
  'index_list',
  'index_xinfo',
  'integrity_check',
  'quick_check',
  'table_info',
  'table_list',
  'table_xinfo',
]
/** PRAGMAs allowed as a plain query only (no argument, no `=`): reading a value changes nothing. */
const PRAGMAS_QUERY_ONLY = [
  'application_id',
  'auto_vacuum',
  'collation_list',
  'compile_options',
  'data_version',
  'encoding',
  'foreign_keys',
  'freelist_count',
  'function_list',
  'journal_mode',
  'module_list',
  'optimize',
  'page_count',
  'page_size',
  'pragma_list',
  'schema_version',
  'user_version',
]

/** The PRAGMAs the console allows, for the refusal's message. */
export const ALLOWED_PRAGMAS = `${PRAGMAS_WITH_ARGUMENT.map((p) => `${p}(…)`).join(', ')}, and without an argument or "=" ${PRAGMAS_QUERY_ONLY.join(', ')}`

/**
 * The PRAGMA statement `text` is, when the console refuses it (its name, or the text's start when
 * it is no plain `PRAGMA [schema.]name[(argument)]` query), or null when it is no PRAGMA or an
 * allowed one ({@link ALLOWED_PRAGMAS}). Any assignment (`PRAGMA x = …`) is refused.
 */
export function refusedPragma(text: string): string | null {
  const start = head(text)
  if (!/^PRAGMA\b/.test(start)) return null
  const m = /^PRAGMA\s+(?:(MAIN|TEMP)\s*\.\s*)?([A-Z_][A-Z0-9_]*)\s*([\s\S]*)$/.exec(start)
  if (!m) return start.slice(0, 60).trim()
  const name = m[2]!.toLowerCase()
  const rest = m[3]!
    .replace(/--[^\n]*(\n|$)/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/[\s;]+$/, '')
  if (rest === '' && (PRAGMAS_QUERY_ONLY.includes(name) || PRAGMAS_WITH_ARGUMENT.includes(name)))
    return null
  if (/^\(\s*[^()=;]*\)$/.test(rest) && PRAGMAS_WITH_ARGUMENT.includes(name)) return null
  return name
}
