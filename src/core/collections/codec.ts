/**
 * Collections as the API returns them: SPEC's `schema` (options nested) beside PocketBase v0.23's
 * `fields` (options flat), and auth options both in `authOptions` and at the top level.
 */
import type { AuthOptions, Collection, Field } from './model.js'

/** Auth options that hold a secret, returned with their duration only. */
const tokenKeys = new Set([
  'authToken',
  'passwordResetToken',
  'emailChangeToken',
  'verificationToken',
  'fileToken',
])

/** The field in SPEC's `schema` shape: options nested. */
export function fieldToSchema(f: Field): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    type: f.type,
    required: f.required,
    unique: f.unique,
    system: f.system,
    hidden: f.hidden,
    presentable: f.presentable,
    ...(f.type === 'autodate' ? {} : { help: f.help ?? '' }),
    options: f.options,
  }
}

/**
 * The field in PocketBase's flat shape: every type has `help` and `required` except autodate,
 * which has neither (PocketBase 0.40).
 */
export function fieldToFlat(f: Field): Record<string, unknown> {
  return {
    ...f.options,
    id: f.id,
    name: f.name,
    type: f.type,
    ...(f.type === 'autodate' ? {} : { required: f.required, help: f.help ?? '' }),
    system: f.system,
    hidden: f.hidden,
    presentable: f.presentable,
  }
}

/** Auth options without secrets, for responses. */
export function publicAuthOptions(o: AuthOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) {
    out[k] = tokenKeys.has(k) ? { duration: (v as { duration: number }).duration } : v
  }
  out.oauth2 = { ...o.oauth2, providers: o.oauth2.providers.map(withoutClientSecret) }
  return out
}

/** An OAuth2 provider config without its write-only `clientSecret`. */
function withoutClientSecret(p: unknown): unknown {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return p
  const { clientSecret: _secret, ...rest } = p as Record<string, unknown>
  return rest
}

/**
 * A collection as the API returns it: `schema` per SPEC and `fields` for PocketBase tools, and
 * for auth collections the options both nested in `authOptions` and at the top level under
 * PocketBase v0.23's keys (DECISIONS "auth collection options").
 */
export function collectionToJSON(c: Collection): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: c.id,
    name: c.name,
    type: c.type,
    system: c.system,
    schema: c.fields.map(fieldToSchema),
    fields: c.fields.map(fieldToFlat),
    indexes: c.indexes,
    listRule: c.listRule,
    viewRule: c.viewRule,
    createRule: c.createRule,
    updateRule: c.updateRule,
    deleteRule: c.deleteRule,
  }
  if (c.type === 'view') out.viewQuery = c.viewQuery ?? ''
  if (c.authOptions) {
    const options = publicAuthOptions(c.authOptions)
    out.authOptions = options
    Object.assign(out, structuredClone(options))
  }
  out.created = c.created
  out.updated = c.updated
  return out
}
