/** Record creation: the body applied to a new record, then the save pipeline (`save.ts`). */
import { ident, join, param, sql, type Sql } from '../../store/sql.js'
import { nowDate } from '../../tools/dates.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { badRequest, messages } from '../errors.js'
import { autodateValue } from '../fields/autodate.js'
import { getFieldType } from '../fields/registry.js'
import { isSuperuser, type RecordData, type RequestInfo } from '../request-info.js'
import type { UploadedFile } from './api.js'
import { checkAuthCreate, checkCreatorManages } from './auth-rules.js'
import { ErrorSet } from './error-set.js'
import { planEmbeddings } from './embeddings.js'
import { assignUploads, prepareUploads } from './files.js'
import { applyBody, authFormFailed, validateRecord } from './input.js'
import { recordSatisfies, ruleCondition } from './query.js'
import { guardedInsert, guardFailed, type RelationGuard } from './relations.js'
import { assertWritable, generate, hashPasswords, saveRecord } from './save.js'

/**
 * Creates a record from a submitted body. Everything that needs no transaction (defaults,
 * autodates, password hashing, upload checks) happens first; the createRule is checked against
 * the inserted row, inside the transaction, so it can see the would-be record.
 */
export async function createRecord(
  app: App,
  collection: Collection,
  body: Record<string, unknown>,
  info: RequestInfo,
  files: readonly UploadedFile[],
): Promise<Record<string, unknown>> {
  assertWritable(collection)
  const su = isSuperuser(info)
  if (collection.createRule === null && !su) ruleCondition(app, collection, 'createRule', info)
  const record: RecordData = {}
  for (const f of collection.fields) record[f.name] = getFieldType(f.type)?.zero(f) ?? null
  const applied = applyBody(collection, record, body, su, generate)
  const errors = new ErrorSet()
  const unmanaged = checkAuthCreate(collection, record, body, applied.passwords, su, errors)
  const now = nowDate()
  for (const f of collection.fields) {
    if (f.type === 'autodate') record[f.name] = autodateValue(f, true, now) ?? ''
    else if (f.type === 'text' && record[f.name] === '' && f.options.autogeneratePattern)
      record[f.name] = generate(f, '')
  }
  await hashPasswords(app, collection, record, applied.passwords, true, errors)
  const prepared = await prepareUploads(collection, files)
  errors.merge(prepared.errors)
  errors.merge(assignUploads(collection, record, prepared.uploads, body, undefined))
  if (!errors.isEmpty && !authFormFailed(collection, errors)) {
    // The other fields are reported in the same 400, as PocketBase lists every failing field
    // (except after an auth record's password or email checks, which it answers alone).
    const skip = new Set(
      collection.fields
        .filter((f) => f.type === 'password' || errors.has(f.name))
        .map((f) => f.name),
    )
    const lookup = app.collections.lookup()
    errors.merge(await validateRecord(collection, record, { isNew: true, lookup, skip }))
  }
  errors.throwIf(messages.recordCreateFailed)
  // Embeddings before the transaction: the writer is not held while a provider answers.
  const plan = await planEmbeddings(app, collection, record, undefined, body)
  for (const [name, planned] of plan) record[name] = planned.vector
  const request = { ...info, body: applied.resolvedBody }
  // In a transaction of its own (not a batch's), the INSERT may wait for the COMMIT: its failure
  // then fails this create only.
  const alone = !app.isTransactional
  return saveRecord(app, {
    action: 'create',
    collection,
    id: String(record.id),
    info,
    uploads: prepared.uploads,
    build: async () => ({ record, request }),
    write: async (tx, e, built) => {
      await insertRow(tx, collection, e.record, built.guard ?? null, alone && builtInOnly(tx))
      await checkCreatorManages(tx, collection, e.record, request, unmanaged)
      const rule = ruleCondition(tx, collection, 'createRule', request)
      if (rule && !(await recordSatisfies(tx, collection, String(e.record.id), rule)))
        throw badRequest(messages.recordCreateFailed)
    },
  })
}

/**
 * True when every `onRecordCreate` handler is a built-in one (`__svc…`): none of them depends
 * on the INSERT having succeeded once `next()` returns other than through a later statement,
 * which fails with the INSERT's error.
 */
function builtInOnly(tx: App): boolean {
  return tx.hooks.onRecordCreate.ids().every((id) => id.startsWith('__svc'))
}

/**
 * `INSERT` of every field of the record; with a guard, only when its related records exist (one
 * statement), else the relation errors the lookup finds, as validation answers them. With
 * `later` (and an engine that can), the INSERT goes with the transaction's next statement or
 * its COMMIT (`Db.runLater`): its failure, a unique violation or a missing related record
 * (`NoRowWritten`, answered by `saveRecord`), then fails the transaction there.
 */
async function insertRow(
  app: App,
  collection: Collection,
  record: RecordData,
  guard: RelationGuard | null,
  later: boolean,
): Promise<void> {
  const cols: Sql[] = []
  const vals: Sql[] = []
  for (const f of collection.fields) {
    cols.push(ident(f.name))
    vals.push(param(getFieldType(f.type)!.toDb(record[f.name], f)))
  }
  const db = app.dbFor(collection)
  const insert = guard
    ? guardedInsert(collection.name, cols, vals, guard)
    : sql`INSERT INTO ${ident(collection.name)} (${join(cols)}) VALUES (${join(vals)})`
  if (later && db.runLater) {
    db.runLater(insert, { mustWrite: guard !== null })
    return
  }
  if (!guard) {
    await db.run(insert)
    return
  }
  const { changes } = await db.run(insert)
  if (changes > 0) return
  const errors = new ErrorSet().merge(await guardFailed(app, collection, guard))
  errors.throwIf(messages.recordCreateFailed)
  throw badRequest(messages.recordCreateFailed)
}
