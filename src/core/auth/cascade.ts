/**
 * The one way a module that owns a per-auth-record system table (`_otps`, `_mfas`, `_api_keys`,
 * …: rows keyed by `recordRef` and `collectionRef`) makes those rows go with their record, and
 * the two priorities every built-in auth record hook is bound with.
 */
import { ident, sql } from '../../store/sql.js'
import type { App } from '../app.js'

/** The priority of built-in auth hooks that must see a record before user handlers (0). */
export const BEFORE_USER_HOOKS = -100

/** The priority of built-in auth hooks that run after user handlers, next to the write. */
export const AFTER_USER_HOOKS = 100

/** The id of the cascade hook of `table`: `__svcAuthCascade_otps` for `_otps`. */
export function authCascadeHookId(table: string): string {
  return `__svcAuthCascade${table}`
}

/**
 * Binds on `onRecordDelete` (id `authCascadeHookId(table)`, after user handlers) the deletion of
 * a deleted auth record's rows in `table`, in the same transaction, once the built-in delete has
 * run. A handler that skips `e.next()` skips the cascade too; unbinding the id keeps the rows.
 * Returns the hook id.
 */
export function bindAuthCascade(app: App, table: string): string {
  return app.hooks.onRecordDelete.bind({
    id: authCascadeHookId(table),
    priority: AFTER_USER_HOOKS,
    func: async (e) => {
      await e.next()
      if (e.collection.type !== 'auth') return
      const owned = e.app.registry.find(table)
      if (!owned) return
      const id = String(e.record.id)
      await e.app
        .dbFor(owned)
        .run(
          sql`DELETE FROM ${ident(owned.name)} WHERE "recordRef" = ${id} AND "collectionRef" = ${e.collection.id}`,
        )
    },
  })
}

/**
 * Binds on `onRecordUpdate` (id `__svcAuthVerifiedUnlink`, after user handlers) the deletion of
 * an auth record's rows in `table` (the OAuth2 links, `_externalAuths`) when the update proves its
 * email (`verified` false → true), in the same transaction, as PocketBase does: a link made while
 * the email was unproven (an OAuth2 sign-up with someone else's address, account pre-hijacking)
 * does not survive the owner proving it. Links made by the same write (an OAuth2 sign-in that
 * verifies) are added after it.
 */
export function bindVerifiedUnlink(app: App, table: string): string {
  return app.hooks.onRecordUpdate.bind({
    id: '__svcAuthVerifiedUnlink',
    priority: AFTER_USER_HOOKS,
    func: async (e) => {
      await e.next()
      const { collection, record, original } = e
      if (collection.type !== 'auth' || !original) return
      if (original.verified === true || record.verified !== true) return
      const owned = e.app.registry.find(table)
      if (!owned) return
      await e.app
        .dbFor(owned)
        .run(
          sql`DELETE FROM ${ident(owned.name)} WHERE "recordRef" = ${String(record.id)} AND "collectionRef" = ${collection.id}`,
        )
    },
  })
}
