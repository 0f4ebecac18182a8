import { ident, param, sql } from '../../store/sql.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { fieldError, type ValidationErrors } from '../errors.js'
import type { RecordData } from '../request-info.js'

/** A loose email shape check, as the auth endpoints need before a lookup. */
export function isEmailShaped(s: string): boolean {
  return s.length <= 255 && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(s)
}

/** An auth record by email (case-insensitive), or undefined. */
export async function findByEmail(
  app: App,
  c: Collection,
  email: string,
): Promise<RecordData | undefined> {
  const db = app.dbFor(c)
  const match = db.dialect.equalsIgnoreCase(ident('email'), param(email))
  const row = await db.get<{ id: string }>(
    sql`SELECT id FROM ${ident(c.name)} WHERE ${match} LIMIT 1`,
  )
  return row ? app.records.findById(c, row.id) : undefined
}

/**
 * Reads a required string of at most `max` characters from a body, recording PocketBase's
 * `validation_required` / `validation_length_out_of_range` error in `errors`. Returns the value
 * ('' when missing or not a string).
 */
export function requiredText(
  body: Record<string, unknown>,
  key: string,
  max: number,
  errors: ValidationErrors,
): string {
  const v = body[key]
  const text = typeof v === 'string' ? v : ''
  if (text === '') errors[key] = fieldError('validation_required', 'Cannot be blank.')
  else if (text.length > max) {
    errors[key] = fieldError(
      'validation_length_out_of_range',
      'The length must be between {min} and {max}.',
      { min: 1, max },
    )
  }
  return text
}
