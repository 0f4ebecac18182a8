import { describe, expect, it } from 'vitest'
import { defaultSettings, validateSettings } from '../../../test/helpers/settings-groups.js'
import type { ValidationErrors } from '../errors.js'
import { isCronExpression } from './groups/backups.js'

const ctx = { collectionExists: (name: string) => name === 'posts', checkIpList: () => ({}) }

describe('validateSettings', () => {
  it('accepts the defaults and an empty patch', () => {
    expect(validateSettings({}, defaultSettings(), ctx)).toEqual({})
  })

  it('asks the context about trigger collections and IP lists', () => {
    const next = defaultSettings()
    next.push.triggers = [
      {
        enabled: true,
        collection: 'posts',
        events: 'create',
        title: '',
        body: '',
        targetField: '',
      },
      {
        enabled: true,
        collection: 'other',
        events: 'delete',
        title: '',
        body: '',
        targetField: '',
      },
    ]
    next.superuserIPs = ['x']
    const errors = validateSettings({}, next, {
      ...ctx,
      checkIpList: (list): ValidationErrors =>
        list.length ? { 0: { code: 'ip', message: 'IP.' } } : {},
    })
    expect(errors).toEqual({
      push: {
        triggers: {
          1: {
            collection: {
              code: 'validation_missing_collection',
              message: 'Must be the name of an existing collection.',
            },
          },
        },
      },
      superuserIPs: { 0: { code: 'ip', message: 'IP.' } },
    })
  })

  it('refuses a merged value that is not an object', () => {
    expect(validateSettings({}, [], ctx)).toEqual({
      '': { code: 'validation_invalid_value', message: 'Must be an object.' },
    })
  })
})

describe('isCronExpression', () => {
  it.each([
    ['* * * * *', true],
    ['0 3 * * *', true],
    ['*/15 0-6 1,15 JAN-MAR MON-FRI', true],
    ['@daily', true],
    ['@hourly', true],
    ['  0 3 * * *  ', true],
    ['', false],
    ['* * * *', false],
    ['0 */5 * * * *', false],
    ['60 * * * *', false],
    ['* 24 * * *', false],
    ['@often', false],
    ['every day', false],
  ])('%j → %s', (expr, ok) => {
    expect(isCronExpression(expr)).toBe(ok)
  })
})
