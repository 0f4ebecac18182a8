/**
 * How a value shows in a records table cell, by field type: file thumbnails, related records by
 * their presentable fields (expanded on the first level), dates as stored (UTC, local time on
 * hover), bool badges, select chips, JSON truncated.
 */
import type { CollectionField, RecordModel } from 'pocketbase'
import { pb } from '../api'
import { findCollection } from '../collections'
import { asList, recordLabel } from './query'

const IMAGE = /\.(png|jpe?g|gif|webp|bmp)$/i

/** Shortens long text for a cell. */
function cut(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/**
 * The URL of a file of a record (a thumbnail for images), with the superuser's file token: every
 * download is gated by the collection's view rule, and an `<img>` cannot send a bearer header.
 */
export function fileURL(
  record: Pick<RecordModel, 'id' | 'collectionId' | 'collectionName'>,
  name: string,
  opts: { thumb?: string; token?: string } = {},
): string {
  const query: Record<string, string> = {}
  if (opts.thumb && IMAGE.test(name)) query.thumb = opts.thumb
  if (opts.token) query.token = opts.token
  return pb.files.getURL(record, name, query)
}

/** True when a file name is an image the server can thumbnail. */
export function isImage(name: string): boolean {
  return IMAGE.test(name)
}

/** One cell's content. */
export function Cell(props: { record: RecordModel; field: CollectionField; fileToken: string }) {
  const { record, field } = props
  const value = record[field.name] as unknown
  switch (field.type) {
    case 'file': {
      const names = asList(value)
      if (!names.length) return <span class="muted">—</span>
      return (
        <span class="cell-files">
          {names.slice(0, 3).map((n) =>
            isImage(n) && props.fileToken ? (
              <img
                key={n}
                class="thumb"
                alt={n}
                title={n}
                loading="lazy"
                src={fileURL(record, n, {
                  thumb: '100x100',
                  token: props.fileToken,
                })}
              />
            ) : (
              <span key={n} class="chip" title={n}>
                {cut(n, 24)}
              </span>
            ),
          )}
          {names.length > 3 && <span class="muted">+{names.length - 3}</span>}
        </span>
      )
    }
    case 'relation': {
      const ids = asList(value)
      if (!ids.length) return <span class="muted">—</span>
      const expanded = (record.expand?.[field.name] ?? null) as RecordModel | RecordModel[] | null
      const list = Array.isArray(expanded) ? expanded : expanded ? [expanded] : []
      const related = findCollection(String(field.collectionId ?? ''))
      return (
        <span class="cell-chips">
          {ids.slice(0, 3).map((id) => {
            const r = list.find((x) => x.id === id)
            return (
              <span key={id} class="chip">
                {cut(r ? recordLabel(r, related) : id, 30)}
              </span>
            )
          })}
          {ids.length > 3 && <span class="muted">+{ids.length - 3}</span>}
        </span>
      )
    }
    case 'bool':
      return <span class={`badge ${value ? 'badge-on' : ''}`}>{value ? 'True' : 'False'}</span>
    case 'select': {
      const values = asList(value)
      if (!values.length) return <span class="muted">—</span>
      return (
        <span class="cell-chips">
          {values.map((v) => (
            <span key={v} class="chip">
              {v}
            </span>
          ))}
        </span>
      )
    }
    case 'date':
    case 'autodate': {
      if (typeof value !== 'string' || !value) return <span class="muted">—</span>
      const local = new Date(value.replace(' ', 'T'))
      const hover = Number.isNaN(local.getTime())
        ? value
        : `${local.toLocaleString()} (${Intl.DateTimeFormat().resolvedOptions().timeZone})`
      return (
        <span class="cell-date" title={hover}>
          <span>{value.slice(0, 10)}</span> <span class="muted">{value.slice(11, 19)} UTC</span>
        </span>
      )
    }
    case 'json':
      if (value === null || value === undefined) return <span class="muted">—</span>
      return <code>{cut(JSON.stringify(value), 60)}</code>
    case 'geoPoint': {
      const p = value as { lat?: number; lon?: number } | null
      if (!p || (p.lat === 0 && p.lon === 0)) return <span class="muted">—</span>
      return <code>{`${p.lat ?? 0}, ${p.lon ?? 0}`}</code>
    }
    case 'editor': {
      const text =
        typeof value === 'string'
          ? value
              .replace(/<[^>]*>/g, ' ')
              .replace(/\s+/g, ' ')
              .trim()
          : ''
      return text ? <span>{cut(text)}</span> : <span class="muted">—</span>
    }
    default: {
      if (value === '' || value === null || value === undefined) return <span class="muted">—</span>
      const text = typeof value === 'string' ? value : JSON.stringify(value)
      return <span title={text.length > 80 ? text : undefined}>{cut(text)}</span>
    }
  }
}
