import type { IndexSpec } from '../../store/schema.js'
import type { Collection } from './model.js'

const word = /^\w+$/

/** Strips one pair of identifier quotes (`x`, "x", [x]). */
function unquote(s: string): string {
  const t = s.trim()
  const m = /^[`"[](.*)[`"\]]$/.exec(t)
  return m ? m[1]! : t
}

/**
 * Parses a user index statement `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (cols)`.
 * Columns may carry `COLLATE NOCASE` and `ASC`/`DESC`; anything else is refused, so the DDL we
 * run is rebuilt from validated names only. Returns an error message on failure.
 */
export function parseIndex(text: string, collection: Collection): IndexSpec | string {
  const m =
    /^\s*CREATE\s+(UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(\S+)\s+ON\s+(\S+)\s*\(([^()]+)\)\s*;?\s*$/i.exec(
      text,
    )
  if (!m) return 'Invalid index expression: expected CREATE [UNIQUE] INDEX name ON table (columns).'
  const name = unquote(m[2]!)
  if (!word.test(name)) return 'Invalid index name.'
  const columns: IndexSpec['columns'] = []
  for (const part of m[4]!.split(',')) {
    const cm = /^\s*(\S+?)(\s+COLLATE\s+NOCASE)?(\s+(?:ASC|DESC))?\s*$/i.exec(part)
    if (!cm) return `Invalid index column "${part.trim()}".`
    const col = unquote(cm[1]!)
    if (!collection.fields.some((f) => f.name === col)) return `Unknown index column "${col}".`
    columns.push({
      name: col,
      nocase: cm[2] !== undefined,
      desc: cm[3] !== undefined && /desc/i.test(cm[3]),
    })
  }
  return { name, unique: m[1] !== undefined, columns }
}

/** Renders an index back in the canonical text stored on the collection. */
export function formatIndex(index: IndexSpec, table: string): string {
  const cols = index.columns
    .map((c) => `\`${c.name}\`${c.nocase ? ' COLLATE NOCASE' : ''}${c.desc ? ' DESC' : ''}`)
    .join(', ')
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX \`${index.name}\` ON \`${table}\` (${cols})`
}

/** Every index the collection's table should have: field `unique` flags, auth ones, user ones. */
export function desiredIndexes(collection: Collection): IndexSpec[] {
  if (collection.type === 'view') return []
  const out: IndexSpec[] = []
  for (const f of collection.fields) {
    if (f.name === 'id') continue
    if (f.unique || (collection.type === 'auth' && (f.name === 'email' || f.name === 'tokenKey'))) {
      const textual = ['text', 'email', 'url', 'select', 'relation', 'file'].includes(f.type)
      out.push({
        name: `__u_${collection.id}_${f.name}`,
        unique: true,
        columns: [{ name: f.name, nocase: f.name === 'email' }],
        ...(textual ? { skipEmpty: f.name } : {}),
      })
    }
  }
  for (const text of collection.indexes) {
    const spec = parseIndex(text, collection)
    if (typeof spec !== 'string') out.push(spec)
  }
  return out
}
