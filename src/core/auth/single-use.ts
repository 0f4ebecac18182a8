/**
 * Single-use tokens (password reset, verification, email change) are consumed inside the write
 * transaction that uses them: the flow passes a check with its system request
 * (`consumingRequest`), and the built-in `onRecordUpdate` hook `__svcAuthSingleUseToken` runs it
 * against the record as read inside that transaction, before any user handler and the write. Of
 * concurrent confirms of one token, the first commits (its write rotates `tokenKey` or marks the
 * record verified) and the others find the token spent: on SQLite the writer lock orders them, on
 * PostgreSQL the conflicting update makes the engine run the transaction again, check included.
 * Passwords are still hashed before the transaction (`records/update.ts`).
 */
import type { App } from '../app.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import { BEFORE_USER_HOOKS } from './cascade.js'

/** The key of the check on a request (a symbol: copied by the pipeline's `{...info}`). */
const CHECK = Symbol('svcSingleUseCheck')

/** What a check answers: go on with the write, or stop it (the token is spent). */
export type SingleUseCheck = (original: RecordData) => Promise<void>

/** Thrown by a check when the token was consumed by a concurrent (or earlier) write. */
export class TokenSpent extends Error {
  constructor() {
    super('the single-use token was already used')
    this.name = 'TokenSpent'
  }
}

/** Thrown by a check when the write is already done (a verified record): no write, no error. */
export class AlreadyDone extends Error {
  constructor() {
    super('nothing left to do')
    this.name = 'AlreadyDone'
  }
}

/** A copy of `info` carrying `check`, to pass to `app.records.update`. */
export function consumingRequest(info: RequestInfo, check: SingleUseCheck): RequestInfo {
  return Object.assign({ ...info }, { [CHECK]: check })
}

/** Binds `__svcAuthSingleUseToken` (see the module comment). */
export function bindSingleUseChecks(app: App): void {
  app.hooks.onRecordUpdate.bind({
    id: '__svcAuthSingleUseToken',
    priority: BEFORE_USER_HOOKS,
    func: async (e) => {
      const check = (e.request as { [CHECK]?: SingleUseCheck })[CHECK]
      if (check && e.original) await check(e.original)
      await e.next()
    },
  })
}
