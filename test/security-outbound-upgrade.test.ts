/**
 * Security issue #32, point 8, the system migration (SQLite: it edits data.db as an older
 * svcbase left it): `_push_subscriptions` of an older database gets `collectionRef` and the
 * owner rules that compare the collection where its rules are still a former default (a rule an
 * operator changed is kept), and its rows the auth collection holding their `recordRef`.
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { systemCollections, withSystemCollections } from '../src/core/collections/system.js'
import { builtInSystemCollections } from '../src/features/index.js'
import { silentLogger } from '../src/core/logger.js'
import { createServer } from '../src/server.js'
describe('older databases get the fixed rules (#32.8, system migration)', () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })
  const OLD = {
    listRule: 'recordRef = @request.auth.id',
    viewRule: 'recordRef = @request.auth.id',
    createRule: '@request.auth.id != "" && recordRef = @request.auth.id',
    updateRule:
      'recordRef = @request.auth.id && (@request.body.recordRef:isset = false || @request.body.recordRef = @request.auth.id)',
  }
  const CUSTOM_DELETE = 'recordRef = @request.auth.id && enabled = false'

  it('replaces the old default rules, keeps a changed one, and attributes old rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-outbound-upgrade-'))
    dirs.push(dir)
    await (await createServer({ dataDir: dir, logger: silentLogger })).close()
    const db = new Database(join(dir, 'data.db'))
    try {
      const row = db
        .prepare(`SELECT fields FROM _collections WHERE name = '_push_subscriptions'`)
        .get() as { fields: string }
      const fields = (JSON.parse(row.fields) as { name: string }[]).filter(
        (f) => f.name !== 'collectionRef',
      )
      const columns = db.prepare(`PRAGMA table_info(_push_subscriptions)`).all() as {
        name: string
      }[]
      if (columns.some((c) => c.name === 'collectionRef'))
        db.exec('ALTER TABLE _push_subscriptions DROP COLUMN collectionRef')
      db.prepare(
        `UPDATE _collections SET fields = ?, listRule = ?, viewRule = ?, createRule = ?, updateRule = ?, deleteRule = ? WHERE name = '_push_subscriptions'`,
      ).run(
        JSON.stringify(fields),
        OLD.listRule,
        OLD.viewRule,
        OLD.createRule,
        OLD.updateRule,
        CUSTOM_DELETE,
      )
      // As an older svcbase left it: version 1 of the rules applied.
      db.prepare(`UPDATE _params SET value = ? WHERE id = 'svc_system_versions'`).run(
        JSON.stringify({ svc_push_subscriptions: 1 }),
      )
      db.prepare(
        `INSERT INTO users (id, email, password, tokenKey) VALUES ('olduser00000001', 'old@example.com', 'x', 'tk-old-user-0001')`,
      ).run()
      db.prepare(
        `INSERT INTO _push_subscriptions (id, platform, recordRef, enabled, token) VALUES ('oldsub000000001', 'android', 'olduser00000001', 1, 'tok')`,
      ).run()
    } finally {
      db.close()
    }

    await (await createServer({ dataDir: dir, logger: silentLogger })).close()
    const def = systemCollections(withSystemCollections(builtInSystemCollections())).find(
      (c) => c.name === '_push_subscriptions',
    )!
    const check = new Database(join(dir, 'data.db'), { readonly: true })
    try {
      const c = check
        .prepare(`SELECT * FROM _collections WHERE name = '_push_subscriptions'`)
        .get() as Record<string, string>
      for (const key of ['listRule', 'viewRule', 'createRule', 'updateRule'] as const) {
        expect(c[key], key).toBe(def[key])
        expect(c[key], key).toContain('collectionRef = @request.auth.collectionId')
      }
      expect(c.deleteRule).toBe(CUSTOM_DELETE)
      const sub = check
        .prepare(`SELECT collectionRef FROM _push_subscriptions WHERE id = 'oldsub000000001'`)
        .get() as { collectionRef: string }
      expect(sub.collectionRef).toBe('_pb_users_auth_')
    } finally {
      check.close()
    }
  })
})
