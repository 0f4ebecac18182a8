import type { Dialect } from '../../store/dialect.js'
import { ident, param, sql, type Sql } from '../../store/sql.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { badRequest, messages, validationError, type ValidationErrors } from '../errors.js'
import { isEmail } from '../fields/email.js'
import { runeLength } from '../fields/cast.js'
import { wrongType } from '../fields/generic-errors.js'
import type { RecordData } from '../request-info.js'

/**
 * PocketBase's rule for comparing an identity with the stored email: case-insensitively only when
 * the collection's unique email index has `COLLATE NOCASE`, else as written (PocketBase's default
 * index has none: `A@x.com` and `a@x.com` are two users, each signing in only as written).
 */
export function emailEquals(dialect: Dialect, c: Collection, column: Sql, value: string): Sql {
  const nocase = c.indexes.some(
    (ix) =>
      /^\s*CREATE\s+UNIQUE\s+INDEX/i.test(ix) && /[`"[]?email[`"\]]?\s+COLLATE\s+NOCASE/i.test(ix),
  )
  return nocase ? dialect.equalsIgnoreCase(column, param(value)) : sql`${column} = ${param(value)}`
}

/** An auth record by email (see {@link emailEquals}), or undefined. */
export async function findByEmail(
  app: App,
  c: Collection,
  email: string,
): Promise<RecordData | undefined> {
  const db = app.dbFor(c)
  const match = emailEquals(db.dialect, c, ident('email'), email)
  const row = await db.get<{ id: string }>(
    sql`SELECT id FROM ${ident(c.name)} WHERE ${match} LIMIT 1`,
  )
  return row ? app.records.findById(c, row.id) : undefined
}

/**
 * Reads a text value from an auth endpoint body: a string as sent, a number or boolean as its
 * text (multipart inference turns `"1234"` into 1234), `''` when missing. An object or list is
 * recorded as a type error in `errors` (it was sent, so it is not "blank") and reads as `''`.
 */
export function bodyText(
  body: Record<string, unknown>,
  key: string,
  errors: ValidationErrors,
): string {
  const v = body[key]
  if (v === undefined || v === null) return ''
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  errors[key] = wrongType('a string', v)
  return ''
}

/**
 * Reads a required string of `min` (default 1) to `max` characters from a body, recording
 * PocketBase's `validation_required` / `validation_length_out_of_range` error in `errors`.
 * Returns the value ('' when missing or not text).
 */
export function requiredText(
  body: Record<string, unknown>,
  key: string,
  max: number,
  errors: ValidationErrors,
  min = 1,
): string {
  const text = bodyText(body, key, errors)
  if (errors[key]) return text
  if (text === '') errors[key] = validationError('validation_required')
  else {
    const length = runeLength(text)
    if (length < min || length > max) {
      errors[key] = validationError('validation_length_out_of_range', { min, max })
    }
  }
  return text
}

/**
 * Reads the required email of an auth endpoint body (`email`, or `newEmail` for an email change),
 * trimmed: `validation_required`, then `validation_is_email` with the app's one email check.
 * Throws PocketBase's 400 "An error occurred while validating the submitted data.".
 */
export function requireEmail(body: Record<string, unknown>, key = 'email'): string {
  const errors: ValidationErrors = {}
  const email = bodyText(body, key, errors).trim()
  if (!errors[key]) {
    if (email === '') errors[key] = validationError('validation_required')
    else if (!isEmail(email)) errors[key] = validationError('validation_is_email')
  }
  if (errors[key]) throw badRequest(messages.validationFailed, errors)
  return email
}
