import { describe, expect, expectTypeOf, it } from 'vitest'
import { sentenize, validationError } from '../errors.js'
import {
  codeOf,
  messages,
  validationMessages,
  type ApiMessage,
  type Entry,
  type ValidationCode,
  type ValidationKey,
} from './catalogue.js'

/** An entry's text with every named argument shown as `{name}`, as the docs list it. */
function render(entry: Entry): string {
  if (typeof entry === 'string') return entry
  const named = new Proxy({}, { get: (_t, k) => `{${String(k)}}` })
  return (entry as (args: unknown) => string)(named)
}

const fieldEntries = Object.entries(validationMessages) as [ValidationKey, Entry][]
const messageEntries = Object.entries(messages) as [string, Entry][]

/**
 * True when `text` is sent as it stands: `sentenize` leaves it unchanged, or it ends with a
 * `{name}` that brings its own end (a parser's diagnostic; sentenize adds a period if not).
 */
const isSentence = (text: string) => sentenize(text) === text || /\{\w+\}$/.test(text)

describe('error catalogue', () => {
  it('holds stable snake_case validation_* codes, one entry per code and message', () => {
    const bad = fieldEntries
      .map(([key]) => key)
      .filter(
        (key) => !/^validation_[a-z0-9]+(?:_[a-z0-9]+)*(?::[a-z0-9]+(?:_[a-z0-9]+)*)?$/.test(key),
      )
    expect(bad).toEqual([])
    const pairs = fieldEntries.map(([key, e]) => `${codeOf(key)} ${render(e)}`)
    expect(pairs.length).toBe(new Set(pairs).size)
    expect(fieldEntries.length).toBeGreaterThan(100)
  })

  it('holds each top-level message once', () => {
    const texts = messageEntries.map(([, e]) => render(e))
    expect(texts.length).toBe(new Set(texts).size)
    expect(messageEntries.length).toBeGreaterThan(100)
  })

  it('words every message as a sentence, as sentenize sends it', () => {
    const all = [...fieldEntries, ...messageEntries].map(([key, e]) => [key, render(e)] as const)
    expect(all.filter(([, text]) => !isSentence(text))).toEqual([])
    expect(isSentence('cannot be blank')).toBe(false)
    expect(isSentence('Invalid filter: {reason}')).toBe(true)
  })

  it('names variants after codes it knows (a typo in a code is an orphan)', () => {
    const codes = new Set<string>(fieldEntries.map(([key]) => key))
    const orphans = fieldEntries.map(([key]) => codeOf(key)).filter((code) => !codes.has(code))
    expect([...new Set(orphans)]).toEqual([
      // variants only: no message is the code's default
      'validation_conflicting_values',
    ])
  })

  it('builds a field error from a key: its code, filled message and params', () => {
    expect(validationError('validation_required')).toEqual({
      code: 'validation_required',
      message: 'Cannot be blank.',
    })
    expect(validationError('validation_length_too_long', { min: 0, max: 5 })).toEqual({
      code: 'validation_length_too_long',
      message: 'The length must be no more than 5.',
      params: { min: 0, max: 5 },
    })
    expect(validationError('validation_invalid_value:object')).toEqual({
      code: 'validation_invalid_value',
      message: 'Must be an object.',
    })
    // A computed entry's arguments shape the message only: no params are sent.
    expect(validationError('validation_invalid_rule', { problem: 'unknown field "x".' })).toEqual({
      code: 'validation_invalid_rule',
      message: 'Invalid rule. Raw error: unknown field "x".',
    })
  })

  it('types codes, keys and messages, so an unknown one fails the typecheck', () => {
    expectTypeOf<'validation_required'>().toExtend<ValidationCode>()
    expectTypeOf<'validation_invalid_value'>().toExtend<ValidationCode>()
    expectTypeOf<'validation_invalid_value:object'>().not.toExtend<ValidationCode>()
    expectTypeOf<'validation_no_such_code'>().not.toExtend<ValidationKey>()
    expectTypeOf<'Failed to create record.'>().toExtend<ApiMessage>()
    expectTypeOf<'Failed to authenticate.'>().toExtend<ApiMessage>()
    expectTypeOf<'No such message.'>().not.toExtend<ApiMessage>()
    expectTypeOf<string>().not.toExtend<ApiMessage>()
    expectTypeOf(validationError<'validation_min_text_constraint'>)
      .parameter(1)
      .toExtend<{ min: unknown }>()
  })
})
