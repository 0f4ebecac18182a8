/**
 * `#/logs?filter=…&superuserRequests=0|1`: requests over time (chart), a raw filter, the request
 * logs newest first (paged with "Load older"), and a detail modal with every attribute.
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, pb } from '../../api'
import { Button, Checkbox } from '../../components/ui'
import { formatDate } from '../../components/operations'
import type { PageProps } from '../../pages'
import { navigate } from '../../router'
import { scheme } from '../../theme'
import { RequestsChart } from './chart'
import { LogDetail } from './detail'
import { levelName, type LogItem, type LogsStat } from './types'
import './logs.css'

const PER_PAGE = 50
const SU_KEY = 'svcLogsSuperuserRequests'

/** A date for a filter (`2025-01-02 03:04:05.000Z`) from epoch seconds. */
function filterDate(s: number): string {
  return new Date(s * 1000).toISOString().replace('T', ' ')
}

/** The filter the API gets: the user's, without superuser requests unless asked, in the zoom. */
function effectiveFilter(raw: string, withSu: boolean, zoom: { from: number; to: number } | null) {
  const parts: string[] = []
  if (raw.trim()) parts.push(`(${raw.trim()})`)
  if (!withSu) parts.push(`data.auth != '_superusers'`)
  if (zoom)
    parts.push(`created >= '${filterDate(zoom.from)}' && created <= '${filterDate(zoom.to)}'`)
  return parts.join(' && ')
}

export default function LogsPage(props: PageProps) {
  const urlFilter = props.route.query.get('filter') ?? ''
  const urlSu = props.route.query.get('superuserRequests')
  const withSu = urlSu !== null ? urlSu === '1' : window.localStorage.getItem(SU_KEY) === '1'
  const [draft, setDraft] = useState(urlFilter)
  const [zoom, setZoom] = useState<{ from: number; to: number } | null>(null)
  const [stats, setStats] = useState<LogsStat[] | null>(null)
  const [items, setItems] = useState<LogItem[]>([])
  const [page, setPage] = useState(1)
  const [more, setMore] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const [open, setOpen] = useState<LogItem | null>(null)
  const [reloads, setReloads] = useState(0)
  const [resets, setResets] = useState(0)

  const listFilter = effectiveFilter(urlFilter, withSu, zoom)
  const statsFilter = effectiveFilter(urlFilter, withSu, null)

  useEffect(() => {
    setDraft(urlFilter)
  }, [urlFilter])

  useEffect(() => {
    let live = true
    setError('')
    pb.logs.getStats({ filter: statsFilter }).then(
      (s) => live && setStats(s as LogsStat[]),
      (err: unknown) => live && setError(errorMessage(err)),
    )
    return () => {
      live = false
    }
  }, [statsFilter, reloads])

  const load = async (p: number, append: boolean) => {
    setBusy(true)
    try {
      const res = await pb.logs.getList(p, PER_PAGE, {
        filter: listFilter,
        sort: '-created',
        skipTotal: true,
      })
      const got = res.items as unknown as LogItem[]
      setItems((prev) => (append ? [...prev, ...got] : got))
      setPage(p)
      setMore(got.length === PER_PAGE)
      setError('')
    } catch (err) {
      setError(errorMessage(err))
      if (!append) setItems([])
    } finally {
      setBusy(false)
    }
  }

  useEffect(() => {
    void load(1, false)
  }, [listFilter, reloads])

  const setQuery = (filter: string, su: boolean) => {
    window.localStorage.setItem(SU_KEY, su ? '1' : '0')
    navigate('logs', { filter, superuserRequests: su ? '1' : '0' }, true)
  }

  return (
    <div class="stack ops-page logs-page">
      <div class="page-header">
        <h1>Logs</h1>
        <Button onClick={() => setReloads((n) => n + 1)} busy={busy}>
          Refresh
        </Button>
      </div>
      <form
        class="row logs-search"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          setQuery(draft, withSu)
        }}
      >
        <label class="grow">
          <span class="sr-only">Filter</span>
          <input
            type="search"
            class="mono logs-filter"
            value={draft}
            placeholder="Search term or filter like level > 0 && data.status >= 400"
            aria-label="Filter"
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="btn btn-primary">
          Search
        </button>
        <Checkbox
          label="Include requests by superusers"
          checked={withSu}
          onChange={(v) => setQuery(urlFilter, v)}
        />
      </form>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      <section class="logs-chart-box" aria-label="Requests over time">
        {stats === null ? (
          <p class="muted">Loading the chart…</p>
        ) : stats.length === 0 ? (
          <p class="muted">No requests in this range.</p>
        ) : (
          <RequestsChart stats={stats} onZoom={setZoom} theme={scheme.value} resets={resets} />
        )}
        {zoom && (
          <div class="row">
            <span class="muted">
              Showing {new Date(zoom.from * 1000).toLocaleString()} –{' '}
              {new Date(zoom.to * 1000).toLocaleString()}
            </span>
            <Button
              kind="link"
              onClick={() => {
                setZoom(null)
                setResets((n) => n + 1)
              }}
            >
              Reset zoom
            </Button>
          </div>
        )}
      </section>
      <div class="table-wrap">
        <table class="logs-table">
          <thead>
            <tr>
              <th scope="col">Level</th>
              <th scope="col">Message</th>
              <th scope="col">Request</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((l) => (
              <tr key={l.id}>
                <td>
                  <span class={`badge level-${levelName(l.level).toLowerCase()}`}>
                    {levelName(l.level)}
                  </span>
                </td>
                <td>
                  <button type="button" class="btn-link log-open" onClick={() => setOpen(l)}>
                    {l.message || '(no message)'}
                  </button>
                </td>
                <td class="mono">
                  {['status', 'method', 'url']
                    .map((k) => l.data?.[k])
                    .filter((v) => v !== undefined && v !== '')
                    .map(String)
                    .join(' ')}
                  {typeof l.data?.execTime === 'number' && (
                    <span class="muted"> {l.data.execTime.toFixed(1)} ms</span>
                  )}
                </td>
                <td>{formatDate(l.created)}</td>
              </tr>
            ))}
            {items.length === 0 && !busy && (
              <tr>
                <td colSpan={4} class="muted">
                  No logs found.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {more && (
        <div class="row">
          <Button busy={busy} onClick={() => void load(page + 1, true)}>
            Load older
          </Button>
        </div>
      )}
      {open && <LogDetail log={open} onClose={() => setOpen(null)} />}
    </div>
  )
}
