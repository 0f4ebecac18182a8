import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SettingsService, defaultSettings } from '../../../test/helpers/settings-groups.js'
import { sql } from '../../store/sql.js'
import { SqliteDb } from '../../store/sqlite/database.js'
import { migrateSqlite } from '../../store/sqlite/migrations.js'
import { badRequest } from '../errors.js'
import { EventBus, LocalTransport, type BusEvent } from '../events.js'
import { deepMerge } from './merge.js'
import { SettingsLoadError } from './service.js'

describe('deepMerge', () => {
  it('merges objects key by key, replaces arrays and scalars, keeps omitted keys', () => {
    const base = { a: { b: 1, c: [1, 2], d: { e: 'x', f: 'y' } }, g: 'keep' }
    expect(deepMerge(base, { a: { c: [3], d: { e: 'z' } } })).toEqual({
      a: { b: 1, c: [3], d: { e: 'z', f: 'y' } },
      g: 'keep',
    })
    expect(base.a.c).toEqual([1, 2])
  })

  it('keeps a __proto__ key as data instead of a prototype', () => {
    const merged = deepMerge({ a: 1 }, JSON.parse('{"__proto__": {"polluted": true}}'))
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype)
    expect(Object.hasOwn(merged, '__proto__')).toBe(true)
    expect((merged as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('SettingsService storage', () => {
  let dir: string
  let db: SqliteDb
  let events: BusEvent[]
  let bus: EventBus

  const storedValue = async () =>
    (await db.get<{ value: string }>(sql`SELECT value FROM _params WHERE id = 'settings'`))?.value
  const service = async (key?: string) => {
    const s = new SettingsService(db, bus, key)
    await s.load()
    return s
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-settings-'))
    db = new SqliteDb(join(dir, 'data.db'))
    await migrateSqlite(db)
    events = []
    const transport = new LocalTransport((err) => {
      throw err
    })
    bus = new EventBus(transport)
    bus.subscribe((e) => {
      events.push(e)
    })
  })
  afterEach(async () => {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('starts from the defaults and stores plain JSON without a key', async () => {
    const s = await service()
    expect(s.get()).toEqual(defaultSettings())
    expect(s.encrypted).toBe(false)
    await s.update({ smtp: { password: 'plain-secret' } })
    const value = await storedValue()
    expect(JSON.parse(value!).smtp.password).toBe('plain-secret')
    expect((await service()).get().smtp.password).toBe('plain-secret')
    await new Promise((r) => setImmediate(r))
    expect(events).toEqual([{ kind: 'settings' }])
  })

  it('encrypts the stored row with a key; the same key reads it back', async () => {
    const s = await service('k3y-for-tests')
    expect(s.encrypted).toBe(true)
    await s.update({ smtp: { password: 'very-secret-pw' }, meta: { appName: 'Encrypted App' } })
    const value = (await storedValue())!
    expect(value).not.toContain('very-secret-pw')
    expect(value).not.toContain('Encrypted App')
    expect(JSON.parse(value)).toMatch(/^svcenc:v1:/)
    const again = await service('k3y-for-tests')
    expect(again.get().smtp.password).toBe('very-secret-pw')
    expect(again.get().meta.appName).toBe('Encrypted App')
    expect(again.get().llm).toEqual(defaultSettings().llm)
  })

  it('fails to load an encrypted row without the key or with another key', async () => {
    await (await service('k3y-for-tests')).update({ s3: { secret: 'abc' } })
    await expect(service()).rejects.toThrow(SettingsLoadError)
    await expect(service()).rejects.toThrow(/encrypted.*SVC_ENCRYPTION_KEY/)
    await expect(service('wrong key')).rejects.toThrow(/Cannot decrypt the stored settings/)
  })

  it('reads a plaintext row with a key set and encrypts it on the next save', async () => {
    await (await service()).update({ sms: { authToken: 'tok-123456' } })
    expect(await storedValue()).toContain('tok-123456')
    const s = await service('new-key')
    expect(s.get().sms.authToken).toBe('tok-123456')
    expect(await storedValue()).toContain('tok-123456')
    await s.update({ meta: { appName: 'Now encrypted' } })
    expect(await storedValue()).not.toContain('tok-123456')
    const reread = await service('new-key')
    expect(reread.get().sms.authToken).toBe('tok-123456')
    expect(reread.get().meta.appName).toBe('Now encrypted')
  })

  it('refuses a row that is not a JSON object', async () => {
    await db.run(sql`INSERT INTO _params (id, value) VALUES ('settings', ${'[1,2]'})`)
    await expect(service()).rejects.toThrow(/not a JSON object/)
    await db.run(sql`UPDATE _params SET value = ${'{broken'} WHERE id = 'settings'`)
    await expect(service()).rejects.toThrow(/not valid JSON/)
  })

  it('ignores stored keys it does not know and values of the wrong kind', async () => {
    const row = JSON.stringify({
      legacy: { x: 1 },
      meta: { appName: 'Old', appUrl: 'http://old.test', hideControls: 'yes' },
      smtp: 'broken',
      logs: { maxDays: 9, minLevel: '4' },
      superuserIPs: ['10.0.0.1'],
      toString: 1,
    })
    await db.run(sql`INSERT INTO _params (id, value) VALUES ('settings', ${row})`)
    const s = await service()
    const defaults = defaultSettings()
    expect(s.get()).toEqual({
      ...defaults,
      meta: { ...defaults.meta, appName: 'Old' },
      logs: { ...defaults.logs, maxDays: 9 },
      superuserIPs: ['10.0.0.1'],
    })
  })

  it('leaves everything as it was when the check refuses a change', async () => {
    const s = await service()
    await s.update({ meta: { appName: 'Before' } })
    const before = await storedValue()
    await expect(
      s.update({ meta: { appName: 'After' } }, () => {
        throw badRequest('no')
      }),
    ).rejects.toThrow('No.')
    expect(s.get().meta.appName).toBe('Before')
    expect(await storedValue()).toBe(before)
  })

  it('serialises concurrent updates so that neither is lost', async () => {
    const s = await service('k')
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.update({ meta: { appName: `n${i}` }, logs: { maxDays: i } }),
      ),
    )
    await Promise.all([s.update({ smtp: { host: 'a.test' } }), s.update({ s3: { bucket: 'b' } })])
    const reread = await service('k')
    expect(reread.get().smtp.host).toBe('a.test')
    expect(reread.get().s3.bucket).toBe('b')
    expect(reread.get().meta.appName).toBe('n9')
  })
})
