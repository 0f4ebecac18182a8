/**
 * How `PATCH /api/settings` reads a body PocketBase would take, where svcbase follows it:
 * top-level keys of no settings group are ignored, a form body (urlencoded or multipart) changes
 * nothing, a rate-limit rule without `audience` is for everyone (`""`), and a group sent as
 * `null` is checked as PocketBase checks it: as the group's zero value (every text `""`, every
 * number 0, …). PocketBase then stores that zero value; svcbase never wipes a group with `null`:
 * when the zero value would pass, the group is still refused ("Must be an object.").
 */
import type { FastifyRequest } from 'fastify'
import type { ValidationErrors } from '../../../core/errors.js'
import type { SettingsValidationContext } from '../../../core/settings/index.js'
import type { App } from '../../../core/app.js'

type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** True for a body sent as a form: PocketBase binds no settings group from one. */
export function isFormBody(req: FastifyRequest): boolean {
  const type = String(req.headers['content-type'] ?? '').toLowerCase()
  return type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/')
}

/** The patch without top-level keys of no group, its rate-limit rules with an audience. */
export function pocketBasePatch(patch: Obj, groups: readonly string[]): Obj {
  const out: Obj = {}
  for (const [key, value] of Object.entries(patch)) {
    if (!groups.includes(key)) continue
    out[key] = value
  }
  const limits = out.rateLimits
  if (isObj(limits) && Array.isArray(limits.rules)) {
    out.rateLimits = {
      ...limits,
      rules: limits.rules.map((rule: unknown) =>
        isObj(rule) && !Object.hasOwn(rule, 'audience') ? { ...rule, audience: '' } : rule,
      ),
    }
  }
  return out
}

/** The zero value of a settings value's shape. */
function zeroOf(value: unknown): unknown {
  if (typeof value === 'string') return ''
  if (typeof value === 'number') return 0
  if (typeof value === 'boolean') return false
  if (Array.isArray(value)) return []
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, zeroOf(v)]))
  return null
}

/**
 * For each group the patch sets to `null`, the errors of its zero value (PocketBase's answer),
 * put in place of the group's "Must be an object." in `errors`.
 */
export function nullGroupErrors(
  app: App,
  patch: Obj,
  merged: unknown,
  errors: ValidationErrors,
  ctx: SettingsValidationContext,
): ValidationErrors {
  const current = app.settings.get() as unknown as Obj
  const out: ValidationErrors = { ...errors }
  for (const [key, value] of Object.entries(patch)) {
    if (value !== null || !isObj(current[key]) || !isObj(merged)) continue
    const zero = zeroOf(current[key])
    const zeroErrors = app.settings.validate({ [key]: zero }, { ...merged, [key]: zero }, ctx)[key]
    // NB: errors per field (an object without a `code`), not one error for the whole group.
    if (isObj(zeroErrors) && !('code' in zeroErrors) && Object.keys(zeroErrors).length > 0) {
      out[key] = zeroErrors
    }
  }
  return out
}
