/**
 * `#/sql`: the SQL console (`POST /api/sql`, one statement). A statement that does not start with
 * SELECT or WITH is a write (`write: true`) and is confirmed first. The results grid shows NULL,
 * the time and row count, exports CSV; recent queries are kept in localStorage.
 */
import { useMemo, useRef, useState } from 'preact/hooks'
import { errorMessage, pb } from '../../api'
import { collections } from '../../collections'
import { Button, Confirm } from '../../components/ui'
import { saveBlob, toCsv } from '../../components/operations'
import type { PageProps } from '../../pages'
import { SqlEditor, type SqlEditorApi } from './editor'
import { ResultGrid, type SqlResult } from './result'
import './sql.css'

const RECENT_KEY = 'svcSqlRecent'
const RECENT_MAX = 20

function loadRecent(): string[] {
  try {
    const v: unknown = JSON.parse(window.localStorage.getItem(RECENT_KEY) ?? '[]')
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
  } catch {
    return []
  }
}

/** A read is a statement starting with SELECT or WITH (what `write: false` accepts). */
function isRead(sql: string): boolean {
  return /^(SELECT|WITH)\b/i.test(sql.trim())
}

export default function SqlPage(_props: PageProps) {
  const [text, setText] = useState(loadRecent()[0] ?? 'SELECT * FROM _collections LIMIT 10')
  const [result, setResult] = useState<SqlResult | null>(null)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const [confirmWrite, setConfirmWrite] = useState(false)
  const [recent, setRecent] = useState(loadRecent)
  const editor = useRef<SqlEditorApi | null>(null)
  const textRef = useRef(text)
  textRef.current = text

  const tables = useMemo(() => {
    const out: Record<string, string[]> = {}
    for (const c of collections.value ?? []) out[c.name] = c.fields.map((f) => f.name)
    return out
  }, [collections.value])

  const remember = (sql: string) => {
    const next = [sql, ...recent.filter((q) => q !== sql)].slice(0, RECENT_MAX)
    setRecent(next)
    window.localStorage.setItem(RECENT_KEY, JSON.stringify(next))
  }

  const run = async (write: boolean) => {
    const sql = textRef.current.trim()
    if (!sql) return
    setBusy(true)
    setError('')
    const started = performance.now()
    try {
      const res = await pb.send<Omit<SqlResult, 'ms' | 'write'>>('/api/sql', {
        method: 'POST',
        body: { sql, write },
      })
      setResult({ ...res, ms: performance.now() - started, write })
      remember(sql)
    } catch (err) {
      setResult(null)
      setError(errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  const execute = () => {
    if (busy) return
    if (isRead(textRef.current)) void run(false)
    else setConfirmWrite(true)
  }

  return (
    <div class="stack ops-page sql-page">
      <div class="page-header">
        <h1>SQL console</h1>
      </div>
      <div class="sql-layout">
        <div class="stack">
          <SqlEditor
            value={text}
            onChange={setText}
            onRun={execute}
            tables={tables}
            apiRef={editor}
          />
          <div class="row">
            <Button kind="primary" busy={busy} onClick={execute}>
              Execute
            </Button>
            <span class="muted">Ctrl+Enter runs it. One statement; cancelled after 10 s.</span>
            <span class="grow" />
            {result && !result.write && (
              <Button
                onClick={() =>
                  saveBlob(
                    new Blob([toCsv(result.columns ?? [], result.rows ?? [])], {
                      type: 'text/csv',
                    }),
                    'query.csv',
                  )
                }
              >
                Export CSV
              </Button>
            )}
          </div>
          {error && (
            <p class="error-text sql-error" role="alert">
              {error}
            </p>
          )}
          {result && <ResultGrid result={result} />}
        </div>
        <aside class="sidebar sql-recent" aria-label="Recent queries">
          <h2>Recent queries</h2>
          {recent.length === 0 && <p class="muted">None yet.</p>}
          <ul>
            {recent.map((q) => (
              <li key={q}>
                <button
                  type="button"
                  class="btn-link mono"
                  title={q}
                  onClick={() => {
                    setText(q)
                    editor.current?.set(q)
                  }}
                >
                  {q}
                </button>
              </li>
            ))}
          </ul>
          {recent.length > 0 && (
            <Button
              kind="link"
              onClick={() => {
                setRecent([])
                window.localStorage.removeItem(RECENT_KEY)
              }}
            >
              Clear history
            </Button>
          )}
        </aside>
      </div>
      {confirmWrite && (
        <Confirm
          title="Run a write statement?"
          confirmLabel="Run it"
          danger
          onCancel={() => setConfirmWrite(false)}
          onConfirm={() => {
            setConfirmWrite(false)
            void run(true)
          }}
        >
          <p>
            This statement is not a SELECT: it may change data. It bypasses API rules, hooks and
            realtime, and runs in its own transaction.
          </p>
          <pre class="mono sql-confirm">{text}</pre>
        </Confirm>
      )}
    </div>
  )
}
