/** Record updates: the body applied to the stored record, then the save pipeline (`save.ts`). */
import { ident, join, sql, type Sql } from '../../store/sql.js'
import { nowDate } from '../../tools/dates.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { messages, notFound, validationError } from '../errors.js'
import { autodateValue } from '../fields/autodate.js'
import { getFieldType } from '../fields/registry.js'
import { isSuperuser, type RecordData, type RequestInfo } from '../request-info.js'
import type { LoadedForUpdate, UploadedFile } from './api.js'
import { checkAuthUpdate } from './auth-rules.js'
import { ErrorSet } from './error-set.js'
import {
  applyEmbeddings,
  autoVectorFields,
  planEmbeddings,
  sourceKeptChanging,
  StaleEmbedding,
  type EmbeddingPlan,
} from './embeddings.js'
import { assignUploads, prepareUploads } from './files.js'
import { applyBody, authFormFailed } from './input.js'
import { recordSatisfies, ruleCondition } from './query.js'
import { assertWritable, generate, hashPasswords, saveRecord } from './save.js'

/**
 * Updates a record that passes the updateRule (failing → 404). Passwords are hashed and uploads
 * checked before the transaction; the record is loaded, changed and validated inside it.
 */
export async function updateRecord(
  app: App,
  collection: Collection,
  id: string,
  body: Record<string, unknown>,
  info: RequestInfo,
  files: readonly UploadedFile[],
): Promise<Record<string, unknown>> {
  assertWritable(collection)
  const su = isSuperuser(info)
  const errors = new ErrorSet()
  // Passwords are hashed before the transaction: bcrypt must not hold the writer lock.
  const hashed = new Map<string, unknown>()
  const passwordBody = Object.fromEntries(
    Object.entries(body).filter(([k]) =>
      collection.fields.some((f) => f.name === k && f.type === 'password'),
    ),
  )
  const { passwords } = applyBody(collection, {}, passwordBody, su, generate)
  await hashPasswords(app, collection, hashed, passwords, false, errors)
  const prepared = await prepareUploads(collection, files)
  // Upload errors answer at once; a password's is answered with the other fields' (inside the
  // pipeline, after the updateRule), as PocketBase lists every failing field.
  if (Object.keys(prepared.errors).length > 0) {
    errors.merge(prepared.errors).throwIf(messages.recordUpdateFailed)
  }
  // Files are stored before the transaction (never under the writer lock); a record the
  // caller may not update is refused first, so nothing is written for it.
  const embedding = autoVectorFields(collection).length > 0 && !!app.services.find('vectors')
  if (prepared.uploads.length > 0 && !embedding)
    await app.records.loadForUpdate(collection, id, body, info)
  if (!embedding) return save(new Map())
  // Embeddings before the transaction: the writer is not held while a provider answers. A source
  // changed by another write in between (rare) makes the plan stale: plan and save again.
  for (let attempt = 1; ; attempt++) {
    const pre = await app.records.loadForUpdate(collection, id, body, info)
    const plan = await planEmbeddings(app, collection, pre.record, pre.original, body)
    try {
      return await save(plan)
    } catch (err) {
      if (!(err instanceof StaleEmbedding)) throw err
      if (attempt >= 3) throw sourceKeptChanging()
    }
  }

  function save(plan: EmbeddingPlan): Promise<Record<string, unknown>> {
    return saveRecord(app, {
      action: 'update',
      collection,
      id,
      info,
      uploads: prepared.uploads,
      build: async (tx, found) => {
        const { original, record, applied } = await tx.records.loadForUpdate(
          collection,
          id,
          body,
          info,
        )
        found.merge(errors)
        // After the updateRule, as PocketBase: an auth record's password errors answer alone.
        if (authFormFailed(collection, found)) found.throwIf(messages.recordUpdateFailed)
        found.merge(assignUploads(collection, record, prepared.uploads, body, original))
        for (const [name, value] of hashed) record[name] = value
        applyEmbeddings(collection, record, original, body, plan, embedding)
        if (record.id !== original.id) found.add('id', validationError('validation_pk_change'))
        const update = { original, record, body, passwords: applied.passwords, info }
        await checkAuthUpdate(tx, collection, update, su, found)
        const now = nowDate()
        for (const f of collection.fields)
          if (f.type === 'autodate') record[f.name] = autodateValue(f, false, now) ?? record[f.name]
        return { record, original, request: { ...info, body: applied.resolvedBody } }
      },
      write: (tx, e, built) => updateRow(tx, collection, e.record, built.original!),
    })
  }
}

/**
 * Loads a record for an update and applies the body to a copy; the updateRule is checked
 * against the stored record with `@request.body` holding the body's final values (modifiers
 * resolved), as PocketBase does. A failing rule answers 404.
 */
export async function loadForUpdate(
  app: App,
  collection: Collection,
  id: string,
  body: Record<string, unknown>,
  info: RequestInfo,
): Promise<LoadedForUpdate> {
  const original = await app.records.load(collection, id, null, info)
  const record: RecordData = { ...original }
  const applied = applyBody(collection, record, body, isSuperuser(info), generate)
  const rule = ruleCondition(app, collection, 'updateRule', { ...info, body: applied.resolvedBody })
  if (rule && !(await recordSatisfies(app, collection, id, rule))) throw notFound()
  return { original, record, applied }
}

/** `UPDATE` of the fields whose stored value changed (nothing when none did). */
async function updateRow(
  app: App,
  collection: Collection,
  record: RecordData,
  original: RecordData,
): Promise<void> {
  const sets: Sql[] = []
  for (const f of collection.fields) {
    if (f.name === 'id') continue
    const ft = getFieldType(f.type)!
    const value = ft.toDb(record[f.name], f)
    const before = ft.toDb(original[f.name], f)
    if (value === before || (value instanceof Uint8Array && sameBytes(value, before))) continue
    sets.push(sql`${ident(f.name)} = ${value}`)
  }
  if (sets.length === 0) return
  await app
    .dbFor(collection)
    .run(sql`UPDATE ${ident(collection.name)} SET ${join(sets)} WHERE id = ${String(original.id)}`)
}

/** True when `b` holds the same bytes as `a` (stored BLOBs, such as vectors). */
function sameBytes(a: Uint8Array, b: unknown): boolean {
  return b instanceof Uint8Array && Buffer.compare(a, b) === 0
}
