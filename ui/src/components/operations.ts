/**
 * Small helpers shared by the operations pages (logs, backups, crons, SQL, storage, realtime):
 * sizes and dates for people, CSV, and saving text or a blob as a download.
 */
import { pb } from '../api'
import './operations.css'

/** `1536` → `1.5 KB`. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) return `${n} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`
}

/** A stored date (`2025-01-02 03:04:05.678Z`) in the browser's locale; '' stays ''. */
export function formatDate(s: string): string {
  if (!s) return ''
  const d = new Date(s.replace(' ', 'T'))
  return Number.isNaN(d.getTime()) ? s : d.toLocaleString()
}

/** A value as text: strings as they are, numbers and booleans printed, anything else as JSON. */
export function valueText(v: unknown, indent?: number): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v)
  return JSON.stringify(v, null, indent) ?? ''
}

/** One CSV cell (RFC 4180 quoting; null is empty). */
function csvCell(v: unknown): string {
  if (v === null || v === undefined) return ''
  const s = valueText(v)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** Rows as CSV text with a header line. */
export function toCsv(columns: string[], rows: Record<string, unknown>[]): string {
  const lines = [columns.map(csvCell).join(',')]
  for (const r of rows) lines.push(columns.map((c) => csvCell(r[c])).join(','))
  return lines.join('\r\n') + '\r\n'
}

/** Saves a blob under a file name (a temporary link the browser follows). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  saveUrl(url, name)
  window.setTimeout(() => URL.revokeObjectURL(url), 30_000)
}

/** Follows a download URL (same origin) with a file name. */
export function saveUrl(url: string, name: string): void {
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.rel = 'noopener'
  document.body.appendChild(a)
  a.click()
  a.remove()
}

/** Fetches a superuser-only URL with the bearer token (for endpoints a link cannot reach). */
export async function fetchAuthed(path: string): Promise<Response> {
  const res = await fetch(pb.buildURL(path), {
    headers: { Authorization: pb.authStore.token, 'x-request-source': 'dashboard' },
  })
  if (!res.ok) {
    let message = `HTTP ${res.status}`
    try {
      const body = (await res.json()) as { message?: string }
      if (body.message) message = body.message
    } catch {
      // not JSON
    }
    throw new Error(message)
  }
  return res
}

/** Copies text to the clipboard; false when the browser refuses. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    return false
  }
}
