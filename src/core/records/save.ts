/**
 * The one save pipeline of create and update: uploads stored before the transaction and removed
 * if it fails, every field validated with the errors the verb collected, the record hook around
 * the built-in write, the after-commit event, and the record presented for the requester.
 */
import { NoRowWritten, UniqueViolation } from '../../store/db.js'
import type { App } from '../app.js'
import type { Collection, Field } from '../collections/model.js'
import { type ApiMessage, badRequest, messages, validationError } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import { autogenerateText } from '../fields/text.js'
import { afterWriteError, type RecordHookEvent } from '../hooks.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import { ErrorSet } from './error-set.js'
import {
  deleteFiles,
  discardUploads,
  fileNames,
  storeUploads,
  type PreparedUpload,
} from './files.js'
import { validateRecord } from './input.js'
import { guardFailed, validateNew, type RelationGuard } from './relations.js'
import { WRITE_READ_LIMIT_MS } from './rule-check.js'

/** A record as it will be saved, built inside the transaction by the verb. */
export interface BuiltRecord {
  record: RecordData
  /** The stored record, for an update. */
  original?: RecordData
  /** The request the hooks see: `body` holds the body's resolved values. */
  request: RequestInfo
  /**
   * Set by the pipeline for a create: the related ids its INSERT must find (`guardedInsert`),
   * or null when they were looked up already.
   */
  guard?: RelationGuard | null
}

/** What create or update hands the pipeline. */
export interface SaveJob {
  action: 'create' | 'update'
  collection: Collection
  /** The record's id: where its uploads are stored. */
  id: string
  /** The request as sent: the written record is presented for it. */
  info: RequestInfo
  uploads: readonly PreparedUpload[]
  /**
   * Builds the record inside the transaction. Field errors go to `errors`; the pipeline adds the
   * validation of every field and answers them all in one 400.
   */
  build(tx: App, errors: ErrorSet): Promise<BuiltRecord>
  /** The built-in write: the last handler of `onRecordCreate` / `onRecordUpdate`. */
  write(tx: App, e: RecordHookEvent, built: BuiltRecord): Promise<void>
}

/** Autogenerates a text field's value after `prefix` (the prefix alone without a pattern). */
export const generate = (field: Field, prefix: string): string =>
  autogenerateText(field, prefix) ?? prefix

/** Views are read-only: writes answer 400. */
export function assertWritable(collection: Collection): void {
  if (collection.type === 'view') throw badRequest(messages.unsupportedCollectionType)
}

/**
 * Saves a record through the pipeline and returns it as the requester sees it. Files the update
 * replaced or removed are deleted only after the commit (in a batch, after the batch's).
 */
export async function saveRecord(app: App, job: SaveJob): Promise<Record<string, unknown>> {
  const { collection, id, uploads } = job
  const message =
    job.action === 'create' ? messages.recordCreateFailed : messages.recordUpdateFailed
  await storeUploads(app, collection, id, uploads)
  // Inside an outer transaction (batch), a later failure must remove these files too.
  app.onAfterRollback(() => discardUploads(app, collection, id, uploads))
  let removed: string[] = []
  let guard: RelationGuard | null = null
  let failed: RecordData | undefined // the record built, for the after-error hook
  const saved = await app
    .runInTransaction(async (tx) => {
      tx.dbFor(collection).limitReads?.(WRITE_READ_LIMIT_MS)
      const errors = new ErrorSet()
      const built = await job.build(tx, errors)
      const { record, original, request } = built
      failed = record
      if (original || !errors.isEmpty) {
        errors.merge(
          await validateRecord(collection, record, {
            isNew: !original,
            original,
            lookup: tx.collections.lookup(),
            skip: passwordFields(collection),
          }),
        )
      } else {
        // A create's related records are checked by its INSERT when everything else passes.
        const checked = await validateNew(tx, collection, record, passwordFields(collection))
        errors.merge(checked.errors)
        built.guard = guard = checked.guard
      }
      errors.throwIf(message)
      const hook = original ? tx.hooks.onRecordUpdate : tx.hooks.onRecordCreate
      const event = original
        ? { app: tx, collection, record, original, request }
        : { app: tx, collection, record, request }
      await hook.trigger(event, (e) => job.write(tx, e, built), [collection.id, collection.name])
      if (original) {
        const kept = new Set(fileNames(collection, record))
        removed = fileNames(collection, original).filter((n) => !kept.has(n))
      }
      tx.onAfterCommit(() => afterCommit(app, job.action, collection, record))
      return { record, out: await presentBeforeCommit(tx, collection, record, job.info) }
    })
    .catch(async (err: unknown) => {
      await discardUploads(app, collection, id, uploads)
      try {
        // A checked INSERT sent with the COMMIT found a related record missing: the lookup's 400.
        if (err instanceof NoRowWritten && guard) {
          const errors = new ErrorSet().merge(await guardFailed(app, collection, guard))
          errors.throwIf(message)
          throw badRequest(message)
        }
        return rethrowUnique(err, message, collection)
      } catch (thrown) {
        if (failed) await afterError(app, job.action, collection, failed, thrown)
        throw thrown
      }
    })
  if (removed.length > 0) {
    const gone = () => deleteFiles(app, collection, id, removed)
    if (app.isTransactional) app.onAfterCommit(gone)
    else await gone()
  }
  return saved.out ?? (await app.records.present(collection, [saved.record], job.info))[0]!
}

/**
 * Validates and hashes the submitted passwords (bcrypt on worker threads, never under the writer
 * lock) into `target`; on create every password field is checked, submitted or not.
 */
export async function hashPasswords(
  app: App,
  collection: Collection,
  target: RecordData | Map<string, unknown>,
  passwords: Map<string, unknown>,
  isNew: boolean,
  errors: ErrorSet,
): Promise<void> {
  for (const f of collection.fields) {
    if (f.type !== 'password' || (!isNew && !passwords.has(f.name))) continue
    const ft = getFieldType(f.type)!
    const plain = ft.normalize(passwords.get(f.name) ?? '', f)
    const err = await ft.validate(plain, f, {
      collection,
      lookup: app.collections.lookup(),
      isNew,
    })
    if (err) {
      errors.add(f.name, err)
      continue
    }
    const hashed = plain === '' ? '' : ft.prepare ? await ft.prepare(plain, f) : plain
    if (target instanceof Map) target.set(f.name, hashed)
    else target[f.name] = hashed
  }
}

/** Publishes a committed change on the event bus, then runs its after-success hook. */
export function afterCommit(
  app: App,
  action: 'create' | 'update' | 'delete',
  collection: Collection,
  record: RecordData,
): Promise<void> {
  app.events.publish({ kind: 'record', action, collection, record })
  const hook =
    action === 'create'
      ? app.hooks.onRecordAfterCreateSuccess
      : action === 'update'
        ? app.hooks.onRecordAfterUpdateSuccess
        : app.hooks.onRecordAfterDeleteSuccess
  return hook.trigger({ app, collection, record }, () => {}, [collection.id, collection.name])
}

/** Runs the after-error hook of a failed write (after its rollback: `afterWriteError`). */
export function afterError(
  app: App,
  action: 'create' | 'update' | 'delete',
  collection: Collection,
  record: RecordData,
  error: unknown,
): Promise<void> {
  const hook =
    action === 'create'
      ? app.hooks.onRecordAfterCreateError
      : action === 'update'
        ? app.hooks.onRecordAfterUpdateError
        : app.hooks.onRecordAfterDeleteError
  if (hook.length === 0) return Promise.resolve()
  return afterWriteError(app, () =>
    hook.trigger({ app, collection, record, error }, () => {}, [collection.id, collection.name]),
  )
}

/** Password fields are validated in plain text before hashing, not with the record. */
function passwordFields(collection: Collection): Set<string> {
  return new Set(collection.fields.filter((f) => f.type === 'password').map((f) => f.name))
}

/** A unique-index violation becomes `validation_not_unique` on each of its fields. */
function rethrowUnique(err: unknown, message: ApiMessage, collection: Collection): never {
  if (err instanceof UniqueViolation) {
    const errors = new ErrorSet()
    for (const col of err.columns)
      if (collection.fields.some((f) => f.name === col))
        errors.add(col, validationError('validation_not_unique'))
    throw errors.toError(message, err)
  }
  throw err
}

/**
 * A written record as the requester sees it, presented inside the write's transaction when
 * `?expand=` asks for relations: an expansion over its budget then fails the write (400, nothing
 * saved) instead of following a committed record. Without `expand`, null: presented after commit.
 */
async function presentBeforeCommit(
  tx: App,
  collection: Collection,
  record: RecordData,
  info: RequestInfo,
): Promise<Record<string, unknown> | null> {
  const expand = info.query.expand
  if (typeof expand !== 'string' || expand.trim() === '') return null
  const [out] = await tx.records.present(collection, [record], info)
  return out ?? null
}
