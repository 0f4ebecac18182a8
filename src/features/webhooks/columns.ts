/**
 * The camelCase columns of `_webhooks` and `_webhook_outbox`, as quoted identifiers: PostgreSQL
 * folds a bare name to lower case, so every dialect gets them quoted.
 */
import { ident } from '../../store/sql.js'

export const NEXT_AT = ident('nextAttemptAt')
export const LEASE_UNTIL = ident('leaseUntil')
export const LAST_STATUS = ident('lastStatus')
export const LAST_ERROR = ident('lastError')
export const LAST_ATTEMPT_AT = ident('lastAttemptAt')
