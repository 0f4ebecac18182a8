import { describe, expect, it } from 'vitest'
import { fieldError } from '../errors.js'
import { objectGroup, type SettingsGroup } from './group.js'
import { CORE_SETTINGS_GROUPS, SettingsRegistry } from './registry.js'

const ctx = { collectionExists: () => true, checkIpList: () => ({}) }

/** A feature's group with a list of objects whose default is empty. */
const hooksGroup = objectGroup<{ secret: string; targets: { url: string }[] }>({
  key: 'hooks',
  secrets: ['secret'],
  itemKeys: { targets: ['url'] },
  defaults: () => ({ secret: '', targets: [] }),
  check(g) {
    g.string('secret')
    if (g.array('targets')?.length === 0) g.fail('targets', fieldError('hooks_empty', 'Empty.'))
  },
})

describe('SettingsRegistry', () => {
  it('lists the core groups in the order GET /api/settings has them', () => {
    expect(Object.keys(new SettingsRegistry().defaults())).toEqual([
      'meta',
      'smtp',
      's3',
      'backups',
      'batch',
      'rateLimits',
      'trustedProxy',
      'logs',
      'superuserIPs',
      'connections',
      'reads',
    ])
  })

  it('derives the write-only paths from every group, prefixed by the group key', () => {
    const registry = new SettingsRegistry()
    expect(registry.secretPaths()).toEqual(['smtp.password', 's3.secret', 'backups.s3.secret'])
    registry.register(hooksGroup)
    expect(registry.secretPaths().at(-1)).toBe('hooks.secret')
    const defaults = registry.defaults()
    expect(registry.withoutSecrets(defaults)).toMatchObject({ hooks: { targets: [] } })
    expect(registry.withoutSecrets(defaults)).not.toHaveProperty('hooks.secret')
    expect(registry.withoutSecrets(defaults)).not.toHaveProperty('smtp.password')
  })

  it.each<[string, SettingsGroup, RegExp]>([
    ['a taken key', { ...hooksGroup, key: 'smtp' }, /already registered/],
    ['an empty key', { ...hooksGroup, key: '' }, /cannot be the key/],
    ['__proto__', { ...hooksGroup, key: '__proto__' }, /cannot be the key/],
    ['a dotted key', { ...hooksGroup, key: 'a.b' }, /cannot be the key/],
  ])('refuses %s', (_name, group, message) => {
    expect(() => new SettingsRegistry([...CORE_SETTINGS_GROUPS, group])).toThrow(message)
  })

  it('validates a registered group with its validator, its item keys and the unknown-key check', () => {
    const registry = new SettingsRegistry([...CORE_SETTINGS_GROUPS, hooksGroup])
    const empty = { ...registry.defaults(), hooks: { secret: '', targets: [] } }
    expect(registry.validate({}, empty, ctx)).toEqual({
      hooks: { targets: { code: 'hooks_empty', message: 'Empty.' } },
    })
    const next = { ...registry.defaults(), hooks: { secret: '', targets: [{ url: 'x' }] } }
    const patch = { hooks: { targets: [{ url: 'x', method: 'GET' }], extra: 1 }, other: {} }
    expect(registry.validate(patch, next, ctx)).toEqual({
      hooks: {
        targets: {
          0: { method: { code: 'validation_unknown_field', message: 'Unknown field.' } },
        },
        extra: { code: 'validation_unknown_field', message: 'Unknown field.' },
      },
      other: { code: 'validation_unknown_field', message: 'Unknown field.' },
    })
    const withoutHooks = new SettingsRegistry()
    expect(withoutHooks.validate({ hooks: {} }, withoutHooks.defaults(), ctx)).toEqual({
      hooks: { code: 'validation_unknown_field', message: 'Unknown field.' },
    })
  })

  it('overlays stored values of the right kind, for feature groups too', () => {
    const registry = new SettingsRegistry([...CORE_SETTINGS_GROUPS, hooksGroup])
    const settings = registry.overlay({
      hooks: { secret: 's', targets: 'not a list', legacy: 1 },
      superuserIPs: ['10.0.0.1'],
      gone: { x: 1 },
    }) as unknown as Record<string, unknown>
    expect(settings.hooks).toEqual({ secret: 's', targets: [] })
    expect(settings.superuserIPs).toEqual(['10.0.0.1'])
    expect(settings).not.toHaveProperty('gone')
  })
})
