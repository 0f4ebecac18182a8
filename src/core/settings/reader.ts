/**
 * Reading a settings object field by field while collecting PocketBase-style field errors: the
 * building block of every group's validator.
 */

import {
  type FieldError,
  hasErrors,
  validationError,
  type ValidationErrors,
  type ValidationKey,
} from '../errors.js'
import { minThreshold, required } from '../fields/generic-errors.js'

/** A plain JSON object. */
export type Obj = Record<string, unknown>

/** True for a plain object (not null, not an array). */
export const isObject = (v: unknown): v is Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** True when `v` is one field error rather than a map of them. */
export const isFieldError = (v: FieldError | ValidationErrors | undefined): v is FieldError =>
  typeof v?.code === 'string' && typeof v.message === 'string'

/** Sets an own property, also for keys such as `__proto__` that plain assignment would not. */
export function define<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  })
}

const typeErrors = {
  'a string': 'validation_invalid_value:string',
  'a boolean': 'validation_invalid_value:boolean',
  'an integer': 'validation_invalid_value:integer',
  'a list': 'validation_invalid_value:list',
  'an object': 'validation_invalid_value:object',
} as const satisfies Record<string, ValidationKey>

/** `validation_invalid_value` "Must be {what}.": the wrong JSON type (or a non-integer). */
export const invalid = (what: keyof typeof typeErrors): FieldError =>
  validationError(typeErrors[what])

/** True for an empty or whitespace-only string. */
export const blank = (s: string): boolean => s.trim() === ''

/**
 * Reads the fields of one settings object with their expected JSON types, recording the first
 * error of each field; a getter returns `undefined` for a field of the wrong type.
 */
export class SettingsReader {
  /** The errors recorded so far, keyed by field. */
  readonly errors: ValidationErrors = {}

  /** @param value the object whose fields are read */
  constructor(private readonly value: Obj) {}

  /** Records `error` for `key` unless the key already has one. */
  fail(key: string, error: FieldError | ValidationErrors | undefined): void {
    if (error && !(key in this.errors) && (isFieldError(error) || hasErrors(error)))
      this.errors[key] = error
  }

  /** The string at `key`, or undefined (and an error) when it is not one. */
  string(key: string): string | undefined {
    const v = this.value[key]
    if (typeof v === 'string') return v
    this.fail(key, invalid('a string'))
    return undefined
  }

  /** The boolean at `key`, or undefined (and an error) when it is not one. */
  boolean(key: string): boolean | undefined {
    const v = this.value[key]
    if (typeof v === 'boolean') return v
    this.fail(key, invalid('a boolean'))
    return undefined
  }

  /** The safe integer at `key`, or undefined (and an error) when it is not one. */
  integer(key: string): number | undefined {
    const v = this.value[key]
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v
    this.fail(key, invalid('an integer'))
    return undefined
  }

  /** The list at `key`, or undefined (and an error) when it is not one. */
  array(key: string): unknown[] | undefined {
    const v = this.value[key]
    if (Array.isArray(v)) return v as unknown[]
    this.fail(key, invalid('a list'))
    return undefined
  }

  /** Validates a nested object with `check`, recording its errors under `key`. */
  object(key: string, check: (r: SettingsReader) => void): void {
    const v = this.value[key]
    if (!isObject(v)) return this.fail(key, invalid('an object'))
    const r = new SettingsReader(v)
    check(r)
    this.fail(key, r.errors)
  }

  /** A string that must be non-blank when `needed`; returns it when non-blank. */
  requiredString(key: string, needed: boolean | undefined): string | undefined {
    const s = this.string(key)
    if (s === undefined) return undefined
    if (!blank(s)) return s
    if (needed) this.fail(key, required())
    return undefined
  }

  /** An integer ≥ `min`; when `needed`, 0 counts as missing (`validation_required`). */
  count(key: string, min: number, needed = false): void {
    const n = this.integer(key)
    if (n === undefined) return
    if (needed && n === 0) this.fail(key, required())
    else if (n < min) this.fail(key, minThreshold(min))
  }
}
