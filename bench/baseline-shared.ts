/**
 * What both bare baselines (`baseline-server.ts` on SQLite, `baseline-postgres-server.ts` on
 * PostgreSQL) write the way svcbase writes it: record ids, dates, and the create body.
 */
import { randomInt } from 'node:crypto'

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** A record id of the shape svcbase writes: 15 characters of `[a-z0-9]`. */
export function newId(): string {
  let out = ''
  for (let i = 0; i < 15; i++) out += ID_ALPHABET[randomInt(ID_ALPHABET.length)]
  return out
}

/** A date of the shape svcbase writes: `YYYY-MM-DD HH:MM:SS.sssZ`. */
export function nowDate(): string {
  return new Date().toISOString().replace('T', ' ')
}

/** The body of `POST /posts/:table`. */
export interface PostBody {
  title?: string
  description?: string
  status?: string
  author?: string
  editors?: string[]
}
