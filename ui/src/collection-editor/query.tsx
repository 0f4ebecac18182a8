/**
 * The Query tab of a view collection: its SQL and a "Preview" that asks the server for the
 * fields the query derives and up to 10 sample rows (`POST /api/collections/meta/dry-run-view`,
 * nothing created).
 */
import { useState } from 'preact/hooks'
import { errorMessage, fieldErrors, pb } from '../api'
import { Button, TextArea } from '../components/ui'

interface Preview {
  fields: { name: string; type: string }[]
  rows: Record<string, unknown>[]
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return ''
  const s = typeof v === 'string' ? v : JSON.stringify(v)
  return s.length > 80 ? `${s.slice(0, 79)}…` : s
}

/** The view query editor with its preview. */
export function QueryTab(props: {
  query: string
  onChange: (q: string) => void
  error: string | undefined
}) {
  const [preview, setPreview] = useState<Preview | null>(null)
  const [failed, setFailed] = useState('')
  const [busy, setBusy] = useState(false)
  const run = async () => {
    setBusy(true)
    setFailed('')
    try {
      const res = await pb.send<Preview>('/api/collections/meta/dry-run-view', {
        method: 'POST',
        body: { viewQuery: props.query },
      })
      setPreview(res)
    } catch (err) {
      setPreview(null)
      setFailed(fieldErrors(err).viewQuery ?? errorMessage(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="ce-query">
      <TextArea
        label="Select query"
        mono
        rows={8}
        value={props.query}
        onInput={props.onChange}
        error={props.error}
        placeholder="SELECT id, title, created FROM posts WHERE status = 'published'"
        hint="One SELECT statement; its columns become the view's fields (an id column is required)."
      />
      <Button onClick={() => void run()} busy={busy} disabled={!props.query.trim()}>
        Preview
      </Button>
      {failed && (
        <p class="error-text" role="alert">
          {failed}
        </p>
      )}
      {preview && (
        <section class="ce-preview" aria-label="Query preview">
          <h3>Fields</h3>
          <ul class="ce-preview-fields">
            {preview.fields.map((f) => (
              <li key={f.name}>
                <code>{f.name}</code> <span class="ce-type-badge">{f.type}</span>
              </li>
            ))}
          </ul>
          <h3>Sample rows ({preview.rows.length})</h3>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  {preview.fields.map((f) => (
                    <th key={f.name} scope="col">
                      {f.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {preview.rows.map((r, i) => (
                  <tr key={i}>
                    {preview.fields.map((f) => (
                      <td key={f.name}>{cell(r[f.name])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </div>
  )
}
