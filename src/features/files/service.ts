import type { App } from '../../core/app.js'
import type { Collection, Field } from '../../core/collections/model.js'
import { viewFieldSource } from '../../core/collections/view.js'
import { fileKey, thumbKey } from '../../core/records/files.js'
import { getFieldType } from '../../core/fields/registry.js'
import { MAIN, selectFrom } from '../../core/records/query.js'
import { column, sql } from '../../store/sql.js'
import type { RecordData } from '../../core/request-info.js'
import { generateThumb, isThumbable, parseThumbSize, ThumbGenerator } from '../../tools/thumbs.js'
import { mime } from '../../tools/mime.js'

const asList = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : []

/** The file field of a record that holds `name`. */
export function fieldHolding(c: Collection, record: RecordData, name: string): Field | undefined {
  return c.fields.find((f) => f.type === 'file' && asList(record[f.name]).includes(name))
}

/** Where a file is stored: the collection and record whose files folder holds it. */
export type FileHome = { collection: Collection; recordId: string }

/**
 * Where a file of a record is stored. A view's file field shows the files of the record it reads
 * them from, so (as PocketBase's `FindRecordByViewFile`) the home is the first record of the
 * source collection whose source field holds `name`; undefined when there is none.
 */
export async function fileHome(
  app: App,
  c: Collection,
  recordId: string,
  field: Field,
  name: string,
): Promise<FileHome | undefined> {
  if (c.type !== 'view') return { collection: c, recordId }
  const source = await viewFieldSource(app, c, field.name)
  if (source?.field.type !== 'file') return undefined
  const { collection: from, field: held } = source
  const db = app.dbFor(from)
  const col = column(MAIN, held.name)
  const each = db.dialect.jsonEach(col, '__file')
  const holds = getFieldType('file')!.isMulti(held)
    ? sql`EXISTS (SELECT 1 FROM ${each.from} WHERE ${each.value} = ${name})`
    : sql`${col} = ${name}`
  const row = await db.get(sql`${selectFrom(from, [holds])} LIMIT 1`)
  return row ? { collection: from, recordId: String(row.id) } : undefined
}

/** Makes each thumbnail once, however many requests ask for it at the same time. */
export type Thumbnails = ThumbGenerator<string | null>

/** A fresh thumbnail generator (one per app). */
export function createThumbnails(): Thumbnails {
  return new ThumbGenerator<string | null>()
}

/** The key of a thumbnail (generated once, then cached in storage), or null to serve the original. */
export async function thumbnail(
  app: App,
  thumbs: Thumbnails,
  home: FileHome,
  field: Field,
  name: string,
  sizeText: string,
): Promise<string | null> {
  const allowed = [
    '100x100',
    ...(Array.isArray(field.options.thumbs) ? (field.options.thumbs as string[]) : []),
  ]
  const size = parseThumbSize(sizeText)
  if (!size || !allowed.includes(sizeText)) return null
  const { collection: c, recordId } = home
  const original = fileKey(c, recordId, name)
  const info = await app.storage.stat(original)
  const type = info?.contentType ?? (mime().lookup(name) || '')
  if (!info || !isThumbable(type)) return null
  const key = thumbKey(c, recordId, name, sizeText)
  if (await app.storage.stat(key)) return key
  return thumbs.get(key, async () => {
    if (await app.storage.stat(key)) return key
    try {
      const source = await app.storage.read(original)
      if (!source) return null
      const thumb = await generateThumb(source.stream, size)
      await app.storage.write(key, thumb.data, {
        contentType: thumb.contentType,
        size: thumb.data.length,
      })
      return key
    } catch (err) {
      app.logger.warn('thumbnail generation failed; serving the original', {
        key,
        error: String(err),
      })
      return null
    }
  })
}
