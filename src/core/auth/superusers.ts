import { ident, sql } from '../../store/sql.js'
import { BEFORE_USER_HOOKS } from './cascade.js'
import { findByEmail } from './lookup.js'
import type { App } from '../app.js'
import { ApiError, badRequest, messages, notFound } from '../errors.js'
import { internalRequest, SUPERUSERS, type RequestInfo } from '../request-info.js'

/** A RequestInfo acting as a superuser, for trusted internal calls (CLI, setup). */
export function systemRequest(app: App, overrides: Partial<RequestInfo> = {}): RequestInfo {
  return internalRequest({
    auth: { record: { id: '' }, collection: app.collections.get(SUPERUSERS) },
    ...overrides,
  })
}

/** The number of superusers. */
export async function countSuperusers(app: App): Promise<number> {
  const row = await app.db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM _superusers`)
  return Number(row?.n ?? 0)
}

/** Superuser management of the CLI: create, update (password), upsert, delete. */
export async function manageSuperuser(
  app: App,
  action: 'create' | 'update' | 'upsert' | 'delete',
  email: string,
  password = '',
): Promise<Record<string, unknown> | null> {
  const c = app.collections.get(SUPERUSERS)
  const info = systemRequest(app)
  const existing = await findByEmail(app, c, email)
  if (action === 'delete') {
    if (!existing) throw notFound(messages.superuserNotFound({ email }))
    await app.records.delete(c, String(existing.id), info)
    return null
  }
  if (action === 'create' && existing) throw badRequest(messages.superuserExists({ email }))
  if (action === 'update' && !existing) throw notFound(messages.superuserNotFound({ email }))
  const body = { email, password, passwordConfirm: password, verified: true }
  return existing
    ? app.records.update(c, String(existing.id), body, info)
    : app.records.create(c, body, info)
}

/** Formats an ApiError with its field errors for a terminal. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const fields = Object.entries(err.data).map(
      ([k, v]) => `  ${k}: ${typeof v.message === 'string' ? v.message : JSON.stringify(v)}`,
    )
    return [err.message, ...fields].join('\n')
  }
  return err instanceof Error ? err.message : String(err)
}

/**
 * Binds the guard that refuses to delete the only superuser (400), on `onRecordDelete` of
 * `_superusers` with id `__svcAuthLastSuperuser`, before user handlers.
 */
export function bindLastSuperuserGuard(app: App): void {
  app.hooks.onRecordDelete.bind(
    {
      id: '__svcAuthLastSuperuser',
      priority: BEFORE_USER_HOOKS,
      func: async (e) => {
        const n = await e.app.db.get<{ n: number }>(
          sql`SELECT COUNT(*) AS n FROM ${ident(e.collection.name)}`,
        )
        if (Number(n?.n) <= 1) throw badRequest(messages.lastSuperuser)
        await e.next()
      },
    },
    [SUPERUSERS],
  )
}
