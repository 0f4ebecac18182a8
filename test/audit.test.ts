/**
 * The audit log (issue 14 part 6, DECISIONS "Audit log"): `_audit_log` rows for record,
 * collection, settings and backup changes and sign-ins, written in the change's transaction;
 * no update or delete through the records API, batch or the SQL console; retention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { onPostgres, otherConnection } from './helpers/other-connection.js'
import { startServer, type TestServer } from './helpers/server.js'

/** The engine's own refusal (the guard's trigger). */
const APPEND_ONLY_DB = '_audit_log is append-only: its rows cannot be updated or deleted'

const APPEND_ONLY =
  'The audit log is append-only: its rows are written by svcbase and cannot be created, updated or deleted through the API.'

describe('audit log', () => {
  let t: TestServer
  let user: { id: string; token: string }

  /** Every audit row matching `filter`, oldest first. */
  const rows = async (filter: string): Promise<Record<string, string>[]> => {
    const res = await t.api(
      'GET',
      `/api/collections/_audit_log/records?perPage=500&sort=created,id&filter=${encodeURIComponent(filter)}`,
      { token: t.suToken },
    )
    expect(res.status).toBe(200)
    return res.body.items
  }

  beforeAll(async () => {
    t = await startServer()
    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'ann@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(created.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'ann@example.com', password: 'password123' },
    })
    expect(login.status).toBe(200)
    user = { id: login.body.record.id, token: login.body.token }
  })
  afterAll(async () => {
    await t?.close()
  })

  it('writes a row per collection change with the superuser as actor', async () => {
    const create = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'posts',
        type: 'base',
        fields: [{ name: 'title', type: 'text' }],
        listRule: '',
        viewRule: '',
        createRule: '',
        updateRule: '',
        deleteRule: '',
      },
    })
    expect(create.status).toBe(200)
    const update = await t.api('PATCH', '/api/collections/posts', {
      token: t.suToken,
      body: { listRule: null },
    })
    expect(update.status).toBe(200)
    const su = (await t.api('GET', '/api/collections/_superusers/records', { token: t.suToken }))
      .body.items[0]
    const got = await rows("action ~ 'collection.' && collection = 'posts'")
    expect(got.map((r) => r.action)).toEqual(['collection.create', 'collection.update'])
    for (const r of got) {
      expect(r.recordId).toBe(create.body.id)
      expect(r.actorCollection).toBe('_superusers')
      expect(r.actorId).toBe(su.id)
      expect(r.ip).toBe('127.0.0.1')
    }
    const temp = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'temp', type: 'base' },
    })
    expect((await t.api('DELETE', '/api/collections/temp', { token: t.suToken })).status).toBe(204)
    const del = await rows("action = 'collection.delete'")
    expect(del).toHaveLength(1)
    expect(del[0]).toMatchObject({ collection: 'temp', recordId: temp.body.id, actorId: su.id })
  })

  it('keeps each request its own actor when schema changes and reads overlap', async () => {
    // The actor's async context is entered by schema and settings requests only and switched
    // off whenever none is in flight: overlapping ones must still each see their own caller.
    const made = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'overlap', type: 'base', fields: [{ name: 'n', type: 'number' }] },
    })
    expect(made.status).toBe(200)
    for (let round = 0; round < 3; round++) {
      const ips = Array.from({ length: 6 }, (_, i) => `10.1.${round}.${i + 1}`)
      const results = await Promise.all([
        ...ips.map((ip, i) =>
          t.from(ip, 'PATCH', '/api/collections/overlap', {
            token: `Bearer ${t.suToken}`,
            body: { listRule: `n > ${round * 10 + i}` },
          }),
        ),
        ...ips.map(() => t.api('GET', '/api/collections/overlap/records', { token: t.suToken })),
      ])
      for (const r of results) expect(r.status).toBe(200)
      const got = await rows(`collection = 'overlap' && ip ~ '10.1.${round}.'`)
      expect(got.map((r) => r.ip).sort()).toEqual([...ips].sort())
    }
  })

  it('writes collection rows for an import, with its actor', async () => {
    const res = await t.from('10.0.0.7', 'PUT', '/api/collections/import', {
      token: `Bearer ${t.suToken}`,
      body: {
        collections: [{ name: 'imported', type: 'base', fields: [{ name: 'x', type: 'text' }] }],
        deleteMissing: false,
      },
    })
    expect(res.status).toBe(204)
    const got = await rows("collection = 'imported'")
    expect(got.map((r) => r.action)).toEqual(['collection.create'])
    expect(got[0]).toMatchObject({ actorCollection: '_superusers', ip: '10.0.0.7' })
  })

  it('writes a row per record create, update and delete with actor and ip', async () => {
    const created = await t.from('10.1.2.3', 'POST', '/api/collections/posts/records', {
      token: user.token,
      body: { title: 'hello' },
    })
    expect(created.status).toBe(200)
    const id = created.body.id as string
    expect(
      (
        await t.api('PATCH', `/api/collections/posts/records/${id}`, {
          token: t.suToken,
          body: { title: 'changed' },
        })
      ).status,
    ).toBe(200)
    expect(
      (await t.api('DELETE', `/api/collections/posts/records/${id}`, { token: null })).status,
    ).toBe(204)
    const got = await rows(`collection = 'posts' && recordId = '${id}'`)
    expect(got.map((r) => r.action)).toEqual(['record.create', 'record.update', 'record.delete'])
    expect(got[0]).toMatchObject({ actorCollection: 'users', actorId: user.id, ip: '10.1.2.3' })
    expect(got[1]).toMatchObject({ actorCollection: '_superusers', ip: '127.0.0.1' })
    expect(got[2]).toMatchObject({ actorCollection: '', actorId: '', ip: '127.0.0.1' })
  })

  it('leaves no row when the change rolls back', async () => {
    const id = t.server.app.hooks.onRecordCreate.bind(
      async (e) => {
        await e.next()
        if (e.record.title === 'boom') throw new Error('rolled back on purpose')
      },
      ['posts'],
    )
    try {
      const res = await t.api('POST', '/api/collections/posts/records', {
        body: { title: 'boom' },
      })
      expect(res.status).toBeGreaterThanOrEqual(400)
      const ok = await t.api('POST', '/api/collections/posts/records', { body: { title: 'fine' } })
      expect(ok.status).toBe(200)
      const listed = await t.api('GET', '/api/collections/posts/records?perPage=500', {
        token: t.suToken,
      })
      const ids = listed.body.items.map((r: { id: string }) => r.id)
      const got = await rows("collection = 'posts' && action = 'record.create'")
      // One row per stored record, none for the rolled-back one.
      expect(got.map((r) => r.recordId).filter((r) => ids.includes(r))).toEqual([ok.body.id])
      expect(got.filter((r) => !ids.includes(r.recordId))).toHaveLength(1) // the one deleted earlier
    } finally {
      t.server.app.hooks.onRecordCreate.unbind(id)
    }
  })

  it('gives rows ids in time order (their first 9 characters: the base-36 millisecond)', async () => {
    const before = Date.now()
    for (const title of ['a', 'b', 'c']) {
      const res = await t.api('POST', '/api/collections/posts/records', { body: { title } })
      expect(res.status).toBe(200)
    }
    const after = Date.now()
    const got = await rows(`collection = 'posts' && action = 'record.create'`)
    const last = got.slice(-3)
    expect(last).toHaveLength(3)
    for (const r of last) {
      expect(r.id).toMatch(/^[a-z0-9]{15}$/)
      const ms = parseInt(r.id!.slice(0, 9), 36)
      expect(ms).toBeGreaterThanOrEqual(before)
      expect(ms).toBeLessThanOrEqual(after)
    }
    expect(last.map((r) => r.id)).toEqual(last.map((r) => r.id).sort())
  })

  it('writes a row per settings change, and none for a refused one', async () => {
    const before = await rows("action = 'settings.update'")
    const ok = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { meta: { appName: 'Audited' } },
    })
    expect(ok.status).toBe(200)
    const bad = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { audit: { maxDays: -1 } },
    })
    expect(bad.status).toBe(400)
    const after = await rows("action = 'settings.update'")
    expect(after).toHaveLength(before.length + 1)
    expect(after.at(-1)).toMatchObject({ actorCollection: '_superusers', ip: '127.0.0.1' })
  })

  it('writes a row per sign-in', async () => {
    const login = await t.from('10.9.9.9', 'POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'ann@example.com', password: 'password123' },
    })
    expect(login.status).toBe(200)
    const failed = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'ann@example.com', password: 'wrong-password' },
    })
    expect(failed.status).toBe(400)
    const got = await rows("action = 'auth.signin' && collection = 'users'")
    // One at beforeAll, one here; the failed attempt wrote none.
    expect(got).toHaveLength(2)
    expect(got[1]).toMatchObject({
      recordId: user.id,
      actorCollection: 'users',
      actorId: user.id,
      ip: '10.9.9.9',
    })
    expect(await rows("action = 'auth.signin' && collection = '_superusers'")).not.toHaveLength(0)
  })

  it('writes no sign-in row for a token refresh', async () => {
    const before = await rows("action = 'auth.signin' && collection = 'users'")
    const refreshed = await t.api('POST', '/api/collections/users/auth-refresh', {
      token: user.token,
    })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.record.id).toBe(user.id)
    expect(await rows("action = 'auth.signin' && collection = 'users'")).toHaveLength(before.length)
  })

  it('writes a row per backup created and deleted', async () => {
    const name = 'audited_backup.zip'
    expect((await t.api('POST', '/api/backups', { token: t.suToken, body: { name } })).status).toBe(
      204,
    )
    expect((await t.api('DELETE', `/api/backups/${name}`, { token: t.suToken })).status).toBe(204)
    // The row is written once the answer has gone out.
    let got: Record<string, string>[] = []
    for (let i = 0; i < 50 && got.length < 2; i++) {
      got = await rows("action ~ 'backup.'")
      if (got.length < 2) await new Promise((r) => setTimeout(r, 20))
    }
    expect(got.map((r) => [r.action, r.recordId])).toEqual([
      ['backup.create', name],
      ['backup.delete', name],
    ])
    expect(got[0]!.actorCollection).toBe('_superusers')
    // The automatic job's archive: a system row.
    const cron = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { backups: { cron: '0 3 * * *', cronMaxKeep: 2 } },
    })
    expect(cron.status).toBe(200)
    let job = 404
    for (let i = 0; i < 50 && job === 404; i++) {
      job = (await t.api('POST', '/api/crons/__svcAutoBackup__', { token: t.suToken })).status
      if (job === 404) await new Promise((r) => setTimeout(r, 20))
    }
    expect(job).toBe(204)
    const listed = await t.api('GET', '/api/backups', { token: t.suToken })
    const auto = listed.body.find((b: { key: string }) => b.key.startsWith('@auto_'))
    expect(auto).toBeDefined()
    let autoRows: Record<string, string>[] = []
    for (let i = 0; i < 50 && autoRows.length === 0; i++) {
      autoRows = await rows(`action = 'backup.create' && recordId = '${auto.key}'`)
      if (autoRows.length === 0) await new Promise((r) => setTimeout(r, 20))
    }
    expect(autoRows).toHaveLength(1)
    expect(autoRows[0]).toMatchObject({ actorCollection: '', actorId: '', ip: '' })
    // Two more runs with cronMaxKeep 2: the first archive is rotated out, and that is a row too.
    for (let run = 0; run < 2; run++)
      expect(
        (await t.api('POST', '/api/crons/__svcAutoBackup__', { token: t.suToken })).status,
      ).toBe(204)
    let rotated: Record<string, string>[] = []
    for (let i = 0; i < 50 && rotated.length === 0; i++) {
      rotated = await rows(`action = 'backup.delete' && recordId = '${auto.key}'`)
      if (rotated.length === 0) await new Promise((r) => setTimeout(r, 20))
    }
    expect(rotated).toHaveLength(1)
    expect(rotated[0]).toMatchObject({ actorCollection: '', actorId: '', ip: '' })
    const left = await t.api('GET', '/api/backups', { token: t.suToken })
    expect(left.body.some((b: { key: string }) => b.key === auto.key)).toBe(false)
    await t.api('PATCH', '/api/settings', { token: t.suToken, body: { backups: { cron: '' } } })
  })

  it('filters like any collection, superusers only', async () => {
    expect((await t.api('GET', '/api/collections/_audit_log/records')).status).toBe(403)
    const asUser = await t.api('GET', '/api/collections/_audit_log/records', {
      token: user.token,
    })
    expect(asUser.status).toBe(403)
    const creates = await rows("action = 'record.create'")
    expect(creates.length).toBeGreaterThan(0)
    expect(creates.every((r) => r.action === 'record.create')).toBe(true)
    const users = await rows("collection = 'users'")
    expect(users.every((r) => r.collection === 'users')).toBe(true)
    expect(new Set(users.map((r) => r.action))).toEqual(new Set(['record.create', 'auth.signin']))
  })

  it('refuses create, update and delete through the records API and batch, superusers too', async () => {
    const [row] = await rows("action = 'record.create'")
    const create = await t.api('POST', '/api/collections/_audit_log/records', {
      token: t.suToken,
      body: { action: 'forged' },
    })
    expect(create.status).toBe(403)
    expect(create.body.message).toBe(APPEND_ONLY)
    const update = await t.api('PATCH', `/api/collections/_audit_log/records/${row!.id}`, {
      token: t.suToken,
      body: { action: 'forged' },
    })
    expect(update.status).toBe(403)
    expect(update.body.message).toBe(APPEND_ONLY)
    const del = await t.api('DELETE', `/api/collections/_audit_log/records/${row!.id}`, {
      token: t.suToken,
    })
    expect(del.status).toBe(403)
    expect(del.body.message).toBe(APPEND_ONLY)
    await t.api('PATCH', '/api/settings', { token: t.suToken, body: { batch: { enabled: true } } })
    const batch = await t.api('POST', '/api/batch', {
      token: t.suToken,
      body: {
        requests: [{ method: 'DELETE', url: `/api/collections/_audit_log/records/${row!.id}` }],
      },
    })
    expect(batch.status).toBe(400)
    expect(JSON.stringify(batch.body)).toContain(APPEND_ONLY)
    expect(await rows(`id = '${row!.id}'`)).toEqual([row])
    expect(await rows("action = 'forged'")).toEqual([])
  })

  it('refuses UPDATE and DELETE through the SQL console and any other connection', async () => {
    const [row] = await rows("action = 'record.create'")
    const update = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: "UPDATE _audit_log SET action = 'forged'", write: true },
    })
    expect(update.status).toBe(400)
    expect(update.body.message).toContain(
      '_audit_log is append-only: its rows cannot be updated or deleted',
    )
    const del = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: 'DELETE FROM _audit_log', write: true },
    })
    expect(del.status).toBe(400)
    expect(del.body.message).toContain(
      onPostgres ? APPEND_ONLY_DB : 'no such function: audit_log_is_append_only',
    )
    const drop = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: {
        sql: onPostgres
          ? 'DROP TRIGGER svc__audit_log_no_change ON _audit_log'
          : 'DROP TRIGGER svc__audit_log_no_delete',
        write: true,
      },
    })
    expect(drop.status).toBe(400)
    const truncate = await t.api('DELETE', '/api/collections/_audit_log/truncate', {
      token: t.suToken,
    })
    expect(truncate.status).toBe(403)
    expect(truncate.body.message).toBe(APPEND_ONLY)
    expect((await t.api('DELETE', '/api/collections/_audit_log/truncate')).status).toBe(401)
    // A connection of another program (the sqlite3 shell, a script) is refused as well.
    const other = await otherConnection(t.dir)
    try {
      await expect(other.run('DELETE FROM _audit_log')).rejects.toThrow(
        onPostgres ? APPEND_ONLY_DB : /no such function: audit_log_is_append_only/,
      )
      await expect(other.run("UPDATE _audit_log SET ip = 'x'")).rejects.toThrow(/append-only/)
    } finally {
      await other.close()
    }
    expect(await rows(`id = '${row!.id}'`)).toEqual([row])
  })

  it('keeps the guard after a schema change of _audit_log', async () => {
    const current = await t.api('GET', '/api/collections/_audit_log', { token: t.suToken })
    const fields = [...current.body.fields, { name: 'note', type: 'text' }]
    const changed = await t.api('PATCH', '/api/collections/_audit_log', {
      token: t.suToken,
      body: { fields },
    })
    expect(changed.status).toBe(200)
    const update = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: "UPDATE _audit_log SET note = 'forged'", write: true },
    })
    expect(update.status).toBe(400)
    expect(update.body.message).toContain('append-only')
    const del = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: 'DELETE FROM _audit_log', write: true },
    })
    expect(del.status).toBe(400)
    expect(await rows("action = 'collection.update' && collection = '_audit_log'")).toHaveLength(1)
  })

  it('deletes rows older than audit.maxDays with __svcAuditCleanup__ and keeps the others', async () => {
    const total = (await rows("id != ''")).length
    const other = await otherConnection(t.dir)
    try {
      const insert = (id: string, at: string) =>
        other.run(
          "INSERT INTO _audit_log (id, action, collection, created, updated) VALUES (?, 'old', 'x', ?, ?)",
          [id, at, at],
        )
      const at = (days: number) =>
        new Date(Date.now() - days * 86_400_000).toISOString().replace('T', ' ')
      await insert('oldrow000000001', at(40))
      await insert('oldrow000000002', at(400))
      await insert('oldrow000000003', at(10))
    } finally {
      await other.close()
    }
    // Kept forever with 0.
    await t.api('PATCH', '/api/settings', { token: t.suToken, body: { audit: { maxDays: 0 } } })
    expect(
      (await t.api('POST', '/api/crons/__svcAuditCleanup__', { token: t.suToken })).status,
    ).toBe(204)
    expect(await rows("action = 'old'")).toHaveLength(3)
    await t.api('PATCH', '/api/settings', { token: t.suToken, body: { audit: { maxDays: 30 } } })
    expect(
      (await t.api('POST', '/api/crons/__svcAuditCleanup__', { token: t.suToken })).status,
    ).toBe(204)
    expect((await rows("action = 'old'")).map((r) => r.id)).toEqual(['oldrow000000003'])
    // Every recent row is still there (plus the two settings changes just made).
    expect((await rows("action != 'old'")).length).toBe(total + 2)
    const settings = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(settings.body.audit).toEqual({ maxDays: 30 })
  })
})

describe('audit log switched off', () => {
  it('writes nothing and has no _audit_log collection (the feature brings it)', async () => {
    const t = await startServer({ disable: ['audit'] })
    try {
      await t.api('PATCH', '/api/settings', { token: t.suToken, body: { meta: { appName: 'x' } } })
      const res = await t.api('GET', '/api/collections/_audit_log/records', { token: t.suToken })
      expect(res.status).toBe(404)
    } finally {
      await t.close()
    }
  })
})

describe('audit log across a restore', () => {
  it('writes backup.restore into the restored data, with the actor of the request', async () => {
    const t = await startServer()
    try {
      const name = 'before_restore.zip'
      expect(
        (await t.api('POST', '/api/backups', { token: t.suToken, body: { name } })).status,
      ).toBe(204)
      const oldApp = t.server.app
      const res = await t.api('POST', `/api/backups/${name}/restore`, { token: t.suToken })
      expect(res.status).toBe(204)
      for (let i = 0; i < 300 && !(t.server.app !== oldApp && t.server.app.isBootstrapped); i++)
        await new Promise((r) => setTimeout(r, 50))
      expect(t.server.app).not.toBe(oldApp)
      const login = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
        body: { identity: 'admin@example.com', password: 'supersecret123' },
      })
      const list = await t.api(
        'GET',
        `/api/collections/_audit_log/records?filter=${encodeURIComponent("action ~ 'backup.'")}&sort=created`,
        { token: login.body.token },
      )
      expect(list.status).toBe(200)
      // The snapshot holds no row of its own backup; the restore row is in the restored data.
      expect(list.body.items.map((r: Record<string, string>) => [r.action, r.recordId])).toEqual([
        ['backup.restore', name],
      ])
      expect(list.body.items[0]).toMatchObject({ actorCollection: '_superusers', ip: '127.0.0.1' })
      // A refused restore leaves no mark behind.
      expect(
        (await t.api('POST', '/api/backups/nope.zip/restore', { token: login.body.token })).status,
      ).toBe(400)
      await t.server.restart()
      const again = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
        body: { identity: 'admin@example.com', password: 'supersecret123' },
      })
      const after = await t.api(
        'GET',
        `/api/collections/_audit_log/records?filter=${encodeURIComponent("action ~ 'backup.'")}`,
        { token: again.body.token },
      )
      expect(after.body.items).toHaveLength(1)
    } finally {
      await t.close()
    }
  })
})
