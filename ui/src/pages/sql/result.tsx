/** The result of one console statement: the grid (NULL shown), time, row count or rows changed. */
import { valueText } from '../../components/operations'

/** What `POST /api/sql` answered, with the time it took in the browser. */
export interface SqlResult {
  columns?: string[]
  rows?: Record<string, unknown>[]
  truncated?: boolean
  rowsAffected?: number
  ms: number
  write: boolean
}

function Cell(props: { v: unknown }) {
  const v = props.v
  if (v === null || v === undefined) return <span class="sql-null">NULL</span>
  return <>{valueText(v)}</>
}

export function ResultGrid(props: { result: SqlResult }) {
  const r = props.result
  const time = `${r.ms.toFixed(0)} ms`
  if (r.write)
    return (
      <p class="sql-summary" role="status">
        {r.rowsAffected ?? 0} row{r.rowsAffected === 1 ? '' : 's'} affected · {time}
      </p>
    )
  const rows = r.rows ?? []
  const cols = r.columns ?? []
  return (
    <div class="stack">
      <p class="sql-summary" role="status">
        {rows.length} row{rows.length === 1 ? '' : 's'}
        {r.truncated && ' (the first ones only: the result was cut at 500 rows or 8 MiB)'} · {time}
      </p>
      <div class="table-wrap sql-grid">
        <table>
          <thead>
            <tr>
              {cols.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i}>
                {cols.map((c) => (
                  <td key={c} title={typeof row[c] === 'string' ? row[c] : undefined}>
                    <Cell v={row[c]} />
                  </td>
                ))}
              </tr>
            ))}
            {rows.length === 0 && (
              <tr>
                <td colSpan={Math.max(cols.length, 1)} class="muted">
                  No rows.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  )
}
