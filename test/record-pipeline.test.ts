import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { mintApiKey } from '../src/core/auth/api-keys.js'
import { BEFORE_USER_HOOKS } from '../src/core/auth/cascade.js'
import { manageSuperuser, systemRequest } from '../src/core/auth/superusers.js'
import { createApp } from '../src/core/create-app.js'
import type { ApiError } from '../src/core/errors.js'
import type { RecordHookEvent } from '../src/core/hooks.js'
import { silentLogger } from '../src/core/logger.js'
import { internalRequest } from '../src/core/request-info.js'
import { ident, sql } from '../src/store/sql.js'

/** The system tables whose rows follow their auth record, with a valid row for `owner`. */
const OWNED: Record<string, (owner: Owner, n: number) => Record<string, unknown>> = {
  _otps: (o) => ({ ...o.refs, password: 'x123456', sentTo: '' }),
  _mfas: (o) => ({ ...o.refs, method: 'password' }),
  _authOrigins: (o, n) => ({ ...o.refs, fingerprint: `fp-${o.email}-${n}` }),
  _externalAuths: (o, n) => ({ ...o.refs, provider: `p${n}`, providerId: `${o.email}-${n}` }),
}

interface Owner {
  id: string
  email: string
  refs: { collectionRef: string; recordRef: string }
}

let app: App
let dir: string

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svcbase-pipeline-'))
  app = await createApp({ dataDir: dir, logger: silentLogger })
})
afterEach(async () => {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

const users = () => app.collections.get('users')

async function createUser(email: string): Promise<Owner> {
  const body = { email, password: 'first-pass-1', passwordConfirm: 'first-pass-1' }
  const out = await app.records.create(users(), body, systemRequest(app))
  const id = String(out.id)
  return { id, email, refs: { collectionRef: users().id, recordRef: id } }
}

/** Gives `owner` a row in every owned table (two of each where the table allows it). */
async function giveRows(owner: Owner): Promise<void> {
  for (const [table, row] of Object.entries(OWNED)) {
    for (const n of [1, 2])
      await app.records.create(app.collections.get(table), row(owner, n), systemRequest(app))
  }
  await mintApiKey(
    app,
    { record: { id: owner.id }, collection: users() },
    { name: `key of ${owner.email}` },
  )
}

/** The number of rows `owner` has in each owned table, as `on` sees them (in its transaction). */
async function rowsOf(owner: Owner, on: App = app): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const table of [...Object.keys(OWNED), '_api_keys']) {
    const row = await on.db.get<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM ${ident(table)} WHERE ${ident('recordRef')} = ${owner.id}`,
    )
    out[table] = Number(row?.n)
  }
  return out
}

const storedTokenKey = async (id: string) => (await app.records.findById(users(), id))?.tokenKey

describe('built-in auth hooks: tokenKey rotation (__svcAuthTokenKeyRotation)', () => {
  const change = { password: 'second-pass-2', passwordConfirm: 'second-pass-2' }

  it('runs before user handlers: a lower priority sees the old key, the default the new one', async () => {
    const u = await createUser('rotate@example.com')
    const before = await storedTokenKey(u.id)
    const seen: Record<string, unknown> = {}
    const see = (name: string) => async (e: RecordHookEvent) => {
      seen[name] = e.record.tokenKey
      await e.next()
    }
    app.hooks.onRecordUpdate.bind({ priority: BEFORE_USER_HOOKS - 1, func: see('early') })
    app.hooks.onRecordUpdate.bind({ func: see('default') })
    await app.records.update(users(), u.id, change, systemRequest(app))
    const after = await storedTokenKey(u.id)
    expect(typeof before).toBe('string')
    expect(seen.early).toBe(before)
    expect(seen.default).toBe(after)
    expect(after).not.toBe(before)
  })

  it('rotates on an email change, not on other fields', async () => {
    const u = await createUser('stay@example.com')
    const before = await storedTokenKey(u.id)
    await app.records.update(users(), u.id, { name: 'Renamed' }, systemRequest(app))
    expect(await storedTokenKey(u.id)).toBe(before)
    await app.records.update(users(), u.id, { email: 'moved@example.com' }, systemRequest(app))
    expect(await storedTokenKey(u.id)).not.toBe(before)
  })

  it('stops when its id is unbound', async () => {
    const u = await createUser('keep@example.com')
    const before = await storedTokenKey(u.id)
    app.hooks.onRecordUpdate.unbind('__svcAuthTokenKeyRotation')
    await app.records.update(users(), u.id, change, systemRequest(app))
    expect(await storedTokenKey(u.id)).toBe(before)
  })
})

describe('built-in auth hooks: cascades (__svcAuthCascade<table>)', () => {
  const all = { _otps: 2, _mfas: 2, _authOrigins: 2, _externalAuths: 2, _api_keys: 1 }
  const none = { _otps: 0, _mfas: 0, _authOrigins: 0, _externalAuths: 0, _api_keys: 0 }

  it("delete a deleted auth record's rows of every owned table, and nobody else's", async () => {
    const [gone, other] = [await createUser('gone@example.com'), await createUser('o@example.com')]
    await giveRows(gone)
    await giveRows(other)
    expect(await rowsOf(gone)).toEqual(all)
    await app.records.delete(users(), gone.id, systemRequest(app))
    expect(await rowsOf(gone)).toEqual(none)
    expect(await rowsOf(other)).toEqual(all)
  })

  it('run after user handlers, next to the write: the rows are there before e.next()', async () => {
    const u = await createUser('order@example.com')
    await giveRows(u)
    const seen: Record<string, number>[] = []
    app.hooks.onRecordDelete.bind(async (e) => {
      seen.push(await rowsOf(u, e.app))
      await e.next()
      seen.push(await rowsOf(u, e.app))
    })
    await app.records.delete(users(), u.id, systemRequest(app))
    expect(seen).toEqual([all, none])
  })

  it('stop one table when its hook id is unbound', async () => {
    const u = await createUser('partial@example.com')
    await giveRows(u)
    app.hooks.onRecordDelete.unbind('__svcAuthCascade_otps')
    await app.records.delete(users(), u.id, systemRequest(app))
    expect(await rowsOf(u)).toEqual({ ...none, _otps: 2 })
  })
})

describe('built-in auth hooks: the last superuser (__svcAuthLastSuperuser)', () => {
  it('refuses to delete the only superuser before user handlers run; unbound, it lets it go', async () => {
    const su = await manageSuperuser(app, 'create', 'root@example.com', 'root-pass-123')
    const supers = app.collections.get('_superusers')
    const ran: string[] = []
    app.hooks.onRecordDelete.bind(async (e) => {
      ran.push(String(e.record.id))
      await e.next()
    })
    const refused = await app.records
      .delete(supers, String(su!.id), systemRequest(app))
      .then(() => null)
      .catch((err: unknown) => err)
    expect(refused).toMatchObject({
      status: 400,
      message: "You can't delete the only existing superuser.",
    })
    expect(ran).toEqual([])
    app.hooks.onRecordDelete.unbind('__svcAuthLastSuperuser')
    await app.records.delete(supers, String(su!.id), systemRequest(app))
    expect(ran).toEqual([su!.id])
    expect(await app.records.findById(supers, String(su!.id))).toBeUndefined()
  })
})

describe('auth rules in the pipeline (not hooks): one 400 with the other field errors', () => {
  it('answers a wrong oldPassword, a bad passwordConfirm and a too long name together', async () => {
    const u = await createUser('self@example.com')
    const self = internalRequest({
      auth: { record: (await app.records.findById(users(), u.id))!, collection: users() },
      method: 'PATCH',
    })
    const body = {
      name: 'x'.repeat(256),
      password: 'second-pass-2',
      passwordConfirm: 'other-pass-3',
      oldPassword: 'not-the-password',
    }
    const err = await app.records
      .update(users(), u.id, body, self)
      .then(() => null)
      .catch((e: unknown) => e)
    expect(err).toMatchObject({ status: 400, message: 'Failed to update record.' })
    expect(Object.keys((err as ApiError).data).sort()).toEqual([
      'name',
      'oldPassword',
      'passwordConfirm',
    ])
    expect((err as ApiError).data.oldPassword).toMatchObject({
      code: 'validation_invalid_old_password',
    })
  })
})
