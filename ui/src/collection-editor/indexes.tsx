/**
 * The indexes of a collection: `CREATE [UNIQUE] INDEX … [WHERE …]` statements, listed, added,
 * edited and deleted (partial indexes are plain `WHERE` clauses).
 */
import { useState } from 'preact/hooks'
import { Button, TextArea } from '../components/ui'

/** The index list editor. */
export function Indexes(props: {
  collectionName: string
  indexes: string[]
  onChange: (indexes: string[]) => void
  error: string | undefined
}) {
  const [editing, setEditing] = useState<number | null>(null)
  const [text, setText] = useState('')
  const start = (i: number | null) => {
    setEditing(i ?? -1)
    const name = props.collectionName || 'collection'
    setText(
      i === null
        ? `CREATE INDEX \`idx_${name}_${Math.random().toString(36).slice(2, 8)}\` ON \`${name}\` (\`field\`)`
        : props.indexes[i]!,
    )
  }
  const done = () => {
    const v = text.trim()
    if (editing === null) return
    if (v) {
      props.onChange(
        editing === -1
          ? [...props.indexes, v]
          : props.indexes.map((x, j) => (j === editing ? v : x)),
      )
    }
    setEditing(null)
  }
  return (
    <section class="ce-indexes" aria-label="Indexes">
      <h3>Indexes</h3>
      {props.indexes.length === 0 && <p class="muted">No indexes.</p>}
      <ul class="ce-index-list">
        {props.indexes.map((ix, i) => (
          <li key={`${i}:${ix}`}>
            <code>{ix}</code>
            <span class="ce-index-actions">
              <Button aria-label={`Edit index ${i + 1}`} onClick={() => start(i)}>
                Edit
              </Button>
              <Button
                kind="danger"
                aria-label={`Delete index ${i + 1}`}
                onClick={() => props.onChange(props.indexes.filter((_, j) => j !== i))}
              >
                Delete
              </Button>
            </span>
          </li>
        ))}
      </ul>
      {props.error && <div class="error-text">{props.error}</div>}
      {editing !== null ? (
        <div class="ce-index-edit">
          <TextArea
            label={editing === -1 ? 'New index' : `Index ${editing + 1}`}
            mono
            rows={3}
            value={text}
            onInput={setText}
            hint="CREATE [UNIQUE] INDEX name ON table (columns) [WHERE condition]"
          />
          <Button kind="primary" onClick={done}>
            Set index
          </Button>
          <Button onClick={() => setEditing(null)}>Cancel</Button>
        </div>
      ) : (
        <Button onClick={() => start(null)}>+ New index</Button>
      )}
    </section>
  )
}
