/**
 * PocketBase's `$apis` for `*.pb.js` files: the middlewares svcbase runs natively around a
 * route (`requireAuth`, `requireSuperuserAuth`, `requireSuperuserOrOwnerAuth`,
 * `requireGuestOnly`, `bodyLimit`, `gzip`, `skipSuccessActivityLog`), `static` (`apis-static.ts`)
 * `recordAuthResponse` (`auth-response.ts`), `enrichRecord` and `enrichRecords`
 * (`enrich-record.ts`): all of PocketBase 0.40.4's `$apis`. A member of an older PocketBase
 * (`activityLogger`, …) fails the file at load, naming it.
 */
import { badRequest, forbidden, messages, tooLarge, unauthorized } from '../../../core/errors.js'
import { isSuperuser } from '../../../core/request-info.js'
import type { ScriptRouteEvent } from '../route-event.js'
import type { RouteEvent, RouteHandler } from '../script-api.js'
import { staticHandler } from './apis-static.js'
import { recordAuthResponseOf } from './auth-response.js'
import { enrichRecordOf, enrichRecordsOf } from './enrich-record.js'
import { strict } from './unsupported.js'

/** A `$apis.require…()` middleware: run natively around the route. */
export const NATIVE = Symbol('svcbase.pbMiddleware')
export interface NativeMiddleware {
  [NATIVE]: RouteHandler
}

export const isNative = (v: unknown): v is NativeMiddleware =>
  (typeof v === 'object' || typeof v === 'function') && v !== null && NATIVE in v

/** PocketBase's `$apis` middlewares that svcbase runs; the rest of `$apis` is not supported. */
export function apis(hooksDir: string): object {
  const native = (fn: RouteHandler): NativeMiddleware => ({ [NATIVE]: fn })
  return strict('$apis', {
    requireAuth: (...collections: unknown[]) =>
      native(async (e: RouteEvent) => {
        const auth = e.requestInfo.auth
        if (!auth) throw unauthorized(messages.authTokenRequired)
        const names = collections.map(String)
        if (
          names.length > 0 &&
          !names.some((n) => n === auth.collection.name || n === auth.collection.id)
        )
          throw forbidden(messages.authRecordNotAllowed)
        await e.next()
      }),
    requireSuperuserAuth: () =>
      native(async (e: RouteEvent) => {
        if (!e.requestInfo.auth) throw unauthorized(messages.authTokenRequired)
        if (!isSuperuser(e.requestInfo)) throw forbidden(messages.authRecordNotAllowed)
        await e.next()
      }),
    requireSuperuserOrOwnerAuth: (ownerIdPathParam?: unknown) =>
      native(async (e: RouteEvent) => {
        const auth = e.requestInfo.auth
        if (!auth) throw unauthorized(messages.pbSuperuserOrOwner)
        const param =
          typeof ownerIdPathParam === 'string' && ownerIdPathParam !== '' ? ownerIdPathParam : 'id'
        if (!isSuperuser(e.requestInfo) && auth.record.id !== e.request.pathValue(param))
          throw forbidden()
        await e.next()
      }),
    bodyLimit: (limitBytes: unknown) => {
      if (typeof limitBytes !== 'number' || Number.isNaN(limitBytes))
        throw new Error(
          messages.pbBadArgument({ name: '$apis.bodyLimit', expected: 'a number of bytes' }),
        )
      return native(async (e: RouteEvent) => {
        // NB: the body was read within svcbase's own limits; a larger declared length is refused.
        const length = Number(e.request.header('content-length') || 0)
        if (limitBytes > 0 && length > limitBytes) throw tooLarge()
        await e.next()
      })
    },
    gzip: () =>
      native(async (e: RouteEvent) => {
        ;(e as Partial<ScriptRouteEvent>).gzip?.()
        await e.next()
      }),
    skipSuccessActivityLog: () =>
      native(async (e: RouteEvent) => {
        ;(e as Partial<ScriptRouteEvent>).skipSuccessLog?.()
        await e.next()
      }),
    // A handler, a function as PocketBase's (run natively, as the middlewares).
    static: (dir: unknown, indexFallback: unknown) =>
      Object.assign(() => undefined, { [NATIVE]: staticHandler(hooksDir, dir, indexFallback) }),
    recordAuthResponse: recordAuthResponseOf,
    enrichRecord: enrichRecordOf,
    enrichRecords: enrichRecordsOf,
    requireGuestOnly: () =>
      native(async (e: RouteEvent) => {
        if (e.requestInfo.auth) throw badRequest(messages.pbGuestOnly)
        await e.next()
      }),
  })
}
