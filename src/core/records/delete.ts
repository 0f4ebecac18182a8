/**
 * Record deletion: `onRecordDelete` around the built-in delete (references detached, the row
 * removed), files and the event after commit. Auth records' own rules (the last superuser, rows
 * of `_otps`, `_api_keys`, …) are hooks bound by `core/auth/record-hooks.ts`.
 */
import { ident, sql } from '../../store/sql.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { ApiError, badRequest, messages } from '../errors.js'
import { internalRequest, type RecordData, type RequestInfo } from '../request-info.js'
import { deletePrefixLater, fileNames, recordPrefix } from './files.js'
import { selectFrom } from './query.js'
import { detachReferences } from './relations.js'
import { afterCommit, afterError, assertWritable } from './save.js'
import { recordFromRow } from './serialize.js'
import { WRITE_READ_LIMIT_MS } from './rule-check.js'

/** Deletes a record that passes the deleteRule (failing → 404), detaching references to it. */
export async function deleteRecord(
  app: App,
  collection: Collection,
  id: string,
  info: RequestInfo,
): Promise<void> {
  assertWritable(collection)
  await app.runInTransaction(async (tx) => {
    tx.dbFor(collection).limitReads?.(WRITE_READ_LIMIT_MS)
    const record = await tx.records.load(collection, id, 'deleteRule', info)
    await tx.records.deleteLoaded(collection, record, info)
  })
}

/** Deletes a loaded record with no rule check (relation cascades and truncate use it). */
export async function deleteLoaded(
  app: App,
  collection: Collection,
  record: RecordData,
  info: RequestInfo,
): Promise<void> {
  await app
    .runInTransaction(async (tx) => {
      await tx.hooks.onRecordDelete.trigger(
        { app: tx, collection, record, request: info },
        async (e) => {
          const id = String(e.record.id)
          await detachReferences(tx, collection, id, info)
          await tx
            .dbFor(collection)
            .run(sql`DELETE FROM ${ident(collection.name)} WHERE id = ${id}`)
        },
        [collection.id, collection.name],
      )
      tx.onAfterCommit(async () => {
        if (fileNames(collection, record).length > 0) {
          await deletePrefixLater(app, recordPrefix(collection, String(record.id)))
        }
        await afterCommit(app, 'delete', collection, record)
      })
    })
    .catch(async (err: unknown) => {
      await afterError(app, 'delete', collection, record, err)
      throw err
    })
}

/**
 * Deletes every record of a collection. As in PocketBase, through the delete path (hooks, one
 * record at a time) when anything watches single deletes: relations to it, an auth collection
 * (its built-in hooks: the last-superuser guard refuses, so truncating `_superusers` fails as in
 * PocketBase; the `_otps`, `_mfas`, … cascades), or a user `onRecordDelete` hook; a plain DELETE
 * otherwise.
 */
export async function truncateRecords(app: App, collection: Collection): Promise<void> {
  const oneByOne =
    collection.type === 'auth' ||
    app.hooks.onRecordDelete.ids().some((id) => !id.startsWith('__svc')) ||
    app.registry
      .all()
      .some((c) =>
        c.fields.some((f) => f.type === 'relation' && f.options.collectionId === collection.id),
      )
  await app
    .runInTransaction(async (tx) => {
      if (collection.fields.some((f) => f.type === 'file')) {
        tx.onAfterCommit(() => deletePrefixLater(app, `${collection.id}/`))
      }
      if (!oneByOne) {
        await tx.dbFor(collection).run(sql`DELETE FROM ${ident(collection.name)}`)
        return
      }
      const rows = await tx.dbFor(collection).all(selectFrom(collection, []))
      const info = internalRequest({ method: 'DELETE' })
      for (const row of rows)
        await tx.records.deleteLoaded(collection, recordFromRow(collection, row), info)
    })
    .catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 400) {
        throw badRequest(messages.truncateFailed, {}, err)
      }
      throw err
    })
}
