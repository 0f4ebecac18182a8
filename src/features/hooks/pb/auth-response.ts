/**
 * PocketBase's `$apis.recordAuthResponse(e, authRecord, authMethod, meta?)` in a script route:
 * the answer of a sign-in, as svcbase's own sign-in routes give it. The collection's authRule is
 * checked; with an `authMethod` (`password`, `otp`, `oauth2`, or a name of the script's own)
 * MFA applies (a first factor answers 401 `{mfaId}`) and a new location is alerted; `''` skips
 * both. `onRecordAuthRequest` runs around the answer `{token, record, meta?}`. The answer is made
 * after the handler returns (queued, as a write), so it is the route's answer unless a later
 * writer of the same handler replaces it.
 */
import { finishAuth, MfaRequiredError, recordAuthResponse } from '../../../core/auth/flow.js'
import type { AuthMethod } from '../../../core/auth/flow.js'
import { checkAuthRule } from '../../../core/auth/password-auth.js'
import { messages } from '../../../core/errors.js'
import type { HookResponse } from '../../../core/request-event.js'
import type { RouteEvent } from '../script-api.js'
import { enqueue } from './invocation.js'
import { asPbRecord } from './record.js'

/** The route events behind the `e` a script's route handler or middleware receives. */
const routeEvents = new WeakMap<object, RouteEvent>()

/** Notes that the script event `facade` is `e`'s. */
export function rememberRouteEvent<T extends object>(facade: T, e: RouteEvent): T {
  routeEvents.set(facade, e)
  return facade
}

/** The route event behind a script's `e`, if it is one. */
export function routeEventOfFacade(facade: unknown): RouteEvent | undefined {
  return typeof facade === 'object' && facade !== null ? routeEvents.get(facade) : undefined
}

/** Gives `res` as the event's answer. */
function answer(e: RouteEvent, res: HookResponse): void {
  if (res.kind === 'json') e.json(res.status, res.body)
  else if (res.kind === 'text') e.string(res.status, String(res.body))
  else e.noContent(res.status)
}

/** The `mfaId` of a request: the query's, else the body's. */
function mfaIdOf(e: RouteEvent): string {
  const q = e.requestInfo.query.mfaId
  if (typeof q === 'string' && q !== '') return q
  const b = e.requestInfo.body.mfaId
  return typeof b === 'string' ? b : ''
}

/** `$apis.recordAuthResponse`. */
export function recordAuthResponseOf(
  ev: unknown,
  rec: unknown,
  authMethod: unknown,
  meta?: unknown,
): void {
  const name = '$apis.recordAuthResponse'
  const e = routeEventOfFacade(ev)
  if (!e) throw new Error(messages.pbBadArgument({ name, expected: "a script route's event e" }))
  const r = asPbRecord(rec)
  if (!r || r.svcCollection.type !== 'auth' || r.isNew())
    throw new Error(messages.pbBadArgument({ name, expected: 'a stored auth record' }))
  const method = typeof authMethod === 'string' ? authMethod : ''
  const extra =
    meta && typeof meta === 'object' && !Array.isArray(meta)
      ? (JSON.parse(JSON.stringify(meta)) as Record<string, unknown>)
      : undefined
  const c = r.svcCollection
  const data = { ...r.svcData }
  enqueue(name, async () => {
    const info = e.requestInfo
    try {
      if (method === '') {
        await checkAuthRule(e.app, c, data, info)
        answer(e, await recordAuthResponse(e.app, c, data, info, '', { meta: extra ?? null }))
      } else
        answer(e, await finishAuth(e.app, c, data, info, method as AuthMethod, mfaIdOf(e), extra))
    } catch (err) {
      if (!(err instanceof MfaRequiredError)) throw err
      e.json(401, { mfaId: err.mfaId })
    }
  })
}
