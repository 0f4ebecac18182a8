import { describe, expect, it } from 'vitest'
import { ApiError, fieldError } from '../errors.js'
import { ErrorSet } from './error-set.js'

const required = fieldError('validation_required', 'Cannot be blank.')
const mismatch = fieldError('validation_values_mismatch', "Values don't match.")
const unique = fieldError('validation_not_unique', 'Value must be unique.')

/** The error `fn` throws, or undefined. */
function thrown(fn: () => void): unknown {
  try {
    fn()
  } catch (err) {
    return err
  }
  return undefined
}

describe('ErrorSet', () => {
  it('starts empty and throws nothing', () => {
    const errors = new ErrorSet()
    expect(errors.isEmpty).toBe(true)
    expect(errors.data).toEqual({})
    expect(thrown(() => errors.throwIf('Failed to create record.'))).toBeUndefined()
  })

  it.each([
    { name: 'null', error: null },
    { name: 'undefined', error: undefined },
  ])('adds nothing for a $name error', ({ error }) => {
    const errors = new ErrorSet().add('oldPassword', error)
    expect(errors.isEmpty).toBe(true)
    expect(errors.has('oldPassword')).toBe(false)
  })

  it('throws one 400 with every collected error', () => {
    const errors = new ErrorSet()
      .add('email', required)
      .merge({ passwordConfirm: mismatch, tags: { 0: unique } })
    const err = thrown(() => errors.throwIf('Failed to update record.'))
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(400)
    expect((err as ApiError).toJSON()).toEqual({
      code: 400,
      status: 400,
      message: 'Failed to update record.',
      data: { email: required, passwordConfirm: mismatch, tags: { 0: unique } },
    })
  })

  it('lets a later error of a field replace the earlier one, in its place', () => {
    const errors = new ErrorSet().add('a', required).add('b', required)
    errors.merge({ a: unique }).add('c', mismatch)
    expect(Object.entries(errors.data)).toEqual([
      ['a', unique],
      ['b', required],
      ['c', mismatch],
    ])
  })

  it('merges another set', () => {
    const other = new ErrorSet().add('verified', mismatch)
    const errors = new ErrorSet().add('email', required).merge(other)
    expect(errors.data).toEqual({ email: required, verified: mismatch })
    expect(other.data).toEqual({ verified: mismatch })
  })

  it('hands out copies: changing `data` changes nothing collected', () => {
    const errors = new ErrorSet().add('email', required)
    const data = errors.data
    data.other = mismatch
    expect(errors.has('other')).toBe(false)
  })

  it('builds an error even with nothing collected, keeping the cause internal', () => {
    const cause = new Error('UNIQUE constraint failed')
    const err = new ErrorSet().toError('Failed to create record.', cause)
    expect(err.cause).toBe(cause)
    expect(err.toJSON()).toEqual({
      code: 400,
      status: 400,
      message: 'Failed to create record.',
      data: {},
    })
  })
})
