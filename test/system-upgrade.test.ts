import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { systemCollections, withSystemCollections } from '../src/core/collections/system.js'
import { builtInSystemCollections } from '../src/features/index.js'
import { silentLogger, type Logger } from '../src/core/logger.js'
import { createServer } from '../src/server.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function newDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svcbase-upgrade-'))
  dirs.push(d)
  return d
}

interface Stored {
  fields: { name: string }[]
  indexes: string[]
  listRule: string | null
  viewRule: string | null
  createRule: string | null
  updateRule: string | null
  deleteRule: string | null
}

/** Runs the app on `dir` once (bootstrap, then stop), collecting its warnings. */
async function boot(dir: string): Promise<string[]> {
  const warnings: string[] = []
  const logger: Logger = { ...silentLogger, warn: (msg: string) => void warnings.push(msg) }
  const server = await createServer({ dataDir: dir, logger })
  await server.close()
  return warnings
}

function stored(dir: string, name: string): Stored {
  const db = new Database(join(dir, 'data.db'), { readonly: true })
  try {
    const row = db.prepare('SELECT * FROM _collections WHERE name = ?').get(name) as Record<
      string,
      string | null
    >
    return {
      ...(row as unknown as Stored),
      fields: JSON.parse(row.fields!) as { name: string }[],
      indexes: JSON.parse(row.indexes!) as string[],
    }
  } finally {
    db.close()
  }
}

function sqliteIndexes(dir: string, table: string): string[] {
  const db = new Database(join(dir, 'data.db'), { readonly: true })
  try {
    return (
      db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`)
        .all(table) as { name: string }[]
    ).map((r) => r.name)
  } finally {
    db.close()
  }
}

const def = (name: string) =>
  systemCollections(withSystemCollections(builtInSystemCollections())).find((c) => c.name === name)!

/**
 * Turns a fresh database into one as an older svcbase left it: `_push_subscriptions` with its
 * first update rule and no index, `_audit_log` without its index, `_webhooks` without the
 * outcome fields, `_teams`/`_team_members` without rules or indexes, no versions recorded.
 */
function makeOld(dir: string, customMembersListRule: string): void {
  const db = new Database(join(dir, 'data.db'))
  try {
    const setRow = (name: string, patch: Record<string, unknown>) => {
      const keys = Object.keys(patch)
      db.prepare(
        `UPDATE _collections SET ${keys.map((k) => `"${k}" = ?`).join(', ')} WHERE name = ?`,
      ).run(...keys.map((k) => patch[k] as string | null), name)
    }
    db.exec('DROP INDEX idx_push_subscriptions_recordRef')
    setRow('_push_subscriptions', { updateRule: 'recordRef = @request.auth.id', indexes: '[]' })
    db.exec('DROP INDEX idx_audit_log_created')
    setRow('_audit_log', { indexes: '[]' })
    const webhooks = stored(dir, '_webhooks').fields.filter(
      (f) => f.name !== 'lastAttemptAt' && f.name !== 'attempts',
    )
    db.exec('ALTER TABLE _webhooks DROP COLUMN lastAttemptAt')
    db.exec('ALTER TABLE _webhooks DROP COLUMN attempts')
    setRow('_webhooks', { fields: JSON.stringify(webhooks) })
    db.exec('DROP INDEX idx_team_members_member')
    db.exec('DROP INDEX idx_team_members_record')
    const none = { listRule: null, viewRule: null, createRule: null, updateRule: null }
    setRow('_teams', { ...none, deleteRule: null })
    setRow('_team_members', {
      ...none,
      listRule: customMembersListRule,
      deleteRule: null,
      indexes: '[]',
    })
    db.exec(`DELETE FROM _params WHERE id = 'svc_system_versions'`)
  } finally {
    db.close()
  }
}

describe('system collections of an older database are brought up to their definitions', () => {
  it('adds missing fields and indexes, sets former default rules once, keeps changed ones', async () => {
    const dir = newDir()
    expect(await boot(dir)).toEqual([])
    const custom = '@request.auth.id != ""'
    makeOld(dir, custom)
    expect(stored(dir, '_push_subscriptions').indexes).toEqual([])

    expect(await boot(dir)).toEqual([])
    const push = stored(dir, '_push_subscriptions')
    expect(push.updateRule).toBe(def('_push_subscriptions').updateRule)
    expect(push.indexes).toEqual(def('_push_subscriptions').indexes)
    expect(sqliteIndexes(dir, '_push_subscriptions')).toContain('idx_push_subscriptions_recordRef')
    expect(stored(dir, '_audit_log').indexes).toEqual(def('_audit_log').indexes)
    expect(sqliteIndexes(dir, '_audit_log')).toContain('idx_audit_log_created')
    const hooks = stored(dir, '_webhooks').fields.map((f) => f.name)
    expect(hooks).toEqual(expect.arrayContaining(['lastAttemptAt', 'attempts']))
    // The autodate stamps stay last.
    expect(hooks.slice(-2)).toEqual(['created', 'updated'])
    const teams = stored(dir, '_teams')
    for (const r of ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule'] as const)
      expect(teams[r], r).toBe(def('_teams')[r])
    const members = stored(dir, '_team_members')
    expect(members.listRule).toBe(custom)
    expect(members.viewRule).toBe(def('_team_members').viewRule)
    expect(members.indexes).toEqual(def('_team_members').indexes)

    // A rule set back to a former default by hand after the upgrade stays so.
    const db = new Database(join(dir, 'data.db'))
    db.prepare(`UPDATE _collections SET listRule = NULL WHERE name = '_teams'`).run()
    db.close()
    expect(await boot(dir)).toEqual([])
    expect(stored(dir, '_teams').listRule).toBeNull()
    expect(stored(dir, '_teams').viewRule).toBe(def('_teams').viewRule)
  })

  it('leaves a collection whose rows break a new unique index as it was, with a warning', async () => {
    const dir = newDir()
    await boot(dir)
    makeOld(dir, '@request.auth.id != ""')
    const db = new Database(join(dir, 'data.db'))
    const team = 'abcdefghijklmno'
    db.prepare(`INSERT INTO _teams (id, name) VALUES (?, 't')`).run(team)
    const member = db.prepare(
      `INSERT INTO _team_members (id, team, recordRef, collectionRef, role) VALUES (?, ?, 'u1', 'c1', 'member')`,
    )
    member.run('member000000001', team)
    member.run('member000000002', team)
    db.close()

    const warnings = await boot(dir)
    expect(warnings).toEqual(['system collection _team_members could not be brought up to date'])
    const members = stored(dir, '_team_members')
    expect(members.indexes).toEqual([])
    expect(members.viewRule).toBeNull()
    // The others were brought up to date all the same.
    expect(stored(dir, '_teams').viewRule).toBe(def('_teams').viewRule)
    expect(stored(dir, '_push_subscriptions').indexes).toEqual(def('_push_subscriptions').indexes)

    // Tried again at the next start: once the duplicate is gone, it goes through.
    const fix = new Database(join(dir, 'data.db'))
    fix.prepare(`DELETE FROM _team_members WHERE id = 'member000000002'`).run()
    fix.close()
    expect(await boot(dir)).toEqual([])
    expect(stored(dir, '_team_members').indexes).toEqual(def('_team_members').indexes)
    expect(stored(dir, '_team_members').viewRule).toBe(def('_team_members').viewRule)
  })
})
