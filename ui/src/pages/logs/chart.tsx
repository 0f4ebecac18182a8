/**
 * Requests over time: a stepped uPlot chart of `GET /api/logs/stats` (hourly counts). uPlot and
 * its CSS load on first use. Dragging over the chart zooms in and reports the time range.
 */
import { useEffect, useRef } from 'preact/hooks'
import type uPlot from 'uplot'
import type { LogsStat } from './types'

/** Seconds since the epoch of a stats hour (`YYYY-MM-DD HH:00:00.000Z`). */
function seconds(date: string): number {
  return Date.parse(date.replace(' ', 'T')) / 1000
}

const HOUR = 3600

/**
 * Every hour from the first one with requests (or 24 hours ago, whichever is earlier) to the
 * current hour, hours without requests as 0, so the steps show quiet hours too.
 */
function hourly(stats: LogsStat[]): [number[], number[]] {
  const counts = new Map(stats.map((s) => [seconds(s.date), s.total]))
  const now = Math.floor(Date.now() / 1000 / HOUR) * HOUR
  const known = [...counts.keys()]
  const first = Math.min(now - 23 * HOUR, ...known)
  const last = Math.max(now, ...known)
  const xs: number[] = []
  const ys: number[] = []
  // NB: at most a year of hours; older stats are kept as they come (retention is days anyway).
  const start = Math.max(first, last - 366 * 24 * HOUR)
  for (let h = start; h <= last; h += HOUR) {
    xs.push(h)
    ys.push(counts.get(h) ?? 0)
  }
  return [xs, ys]
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback
}

export function RequestsChart(props: {
  stats: LogsStat[]
  /** Called with the selected range in seconds, or null once the zoom is reset. */
  onZoom: (range: { from: number; to: number } | null) => void
  theme: string
  /** Changed to draw the chart afresh (its zoom undone). */
  resets: number
}) {
  const box = useRef<HTMLDivElement>(null)
  const plot = useRef<uPlot | null>(null)
  useEffect(() => {
    let live = true
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([mod]) => {
      const el = box.current
      if (!live || !el) return
      const UPlot = mod.default
      const [xs, ys] = hourly(props.stats)
      const accent = cssVar('--accent', '#1055c9')
      const muted = cssVar('--muted', '#5b6270')
      const grid = cssVar('--border', '#d5d9e0')
      const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } }
      plot.current?.destroy()
      plot.current = new UPlot(
        {
          width: Math.max(el.clientWidth, 300),
          height: 180,
          legend: { show: false },
          cursor: { drag: { x: true, y: false } },
          scales: { x: { time: true } },
          axes: [axis, { ...axis, size: 50 }],
          series: [
            {},
            {
              label: 'Requests',
              stroke: accent,
              fill: `${accent}33`,
              width: 2,
              paths: UPlot.paths.stepped!({ align: 1 }),
            },
          ],
          hooks: {
            setSelect: [
              (u) => {
                if (u.select.width < 2) return
                const from = u.posToVal(u.select.left, 'x')
                const to = u.posToVal(u.select.left + u.select.width, 'x')
                props.onZoom({ from, to })
              },
            ],
          },
        },
        [xs, ys],
        el,
      )
    })
    return () => {
      live = false
    }
  }, [props.stats, props.theme, props.resets])
  useEffect(() => () => plot.current?.destroy(), [])
  useEffect(() => {
    const onResize = () => {
      const el = box.current
      if (el && plot.current)
        plot.current.setSize({ width: Math.max(el.clientWidth, 300), height: 180 })
    }
    window.addEventListener('resize', onResize)
    return () => window.removeEventListener('resize', onResize)
  }, [])
  return (
    <div
      class="logs-chart"
      ref={box}
      role="img"
      aria-label={`Requests per hour: ${props.stats.reduce((n, s) => n + s.total, 0)} in ${props.stats.length} hours`}
    />
  )
}
