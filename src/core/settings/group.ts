/**
 * The shape of one settings group: a top-level key of the settings object with its defaults,
 * its validator and its write-only keys. Core groups live in `groups/`; a feature declares its
 * own through `app.settings.registerGroup(group)`.
 */

import type { FieldError, ValidationErrors } from '../errors.js'
import { SettingsReader, invalid, isObject } from './reader.js'

/** What a group's validator may ask about the rest of the app. */
export interface SettingsValidationContext {
  /** True when a collection with this name exists (push trigger targets). */
  collectionExists(name: string): boolean
  /**
   * Errors per item of a list of IPs and CIDR subnets (`superuserIPs`,
   * `rateLimits.excludedIPs`), keyed by index: the HTTP layer's `validateIpList`.
   */
  checkIpList(list: unknown[]): ValidationErrors
}

/**
 * One settings group (SPEC §2.7): the key it sits under, fresh defaults, a validator of the
 * merged value and the keys that are stored but never returned.
 */
export interface SettingsGroup<T = unknown> {
  /** The top-level key (`meta`, `smtp`, `push`, …). */
  readonly key: string
  /** The defaults, as a fresh value on every call. */
  defaults(): T
  /**
   * Validates the group's value after a patch was merged onto the current settings. The value
   * may be any JSON (a patch can replace an object with a string); returns one field error for
   * the whole value, or errors per field (nested like the value, list items by index).
   */
  validate(value: unknown, ctx: SettingsValidationContext): FieldError | ValidationErrors
  /** Write-only keys as dotted paths inside the group (`password`, `vapid.privateKey`). */
  readonly secrets?: readonly string[]
  /**
   * The keys of one item for each list of objects, by dotted path inside the group (`rules`),
   * so that unknown keys in list items are refused although the default list may be empty.
   */
  readonly itemKeys?: Readonly<Record<string, readonly string[]>>
}

/** What `objectGroup` needs: a group whose value is an object checked field by field. */
export interface ObjectGroupSpec<T> extends Omit<SettingsGroup<T>, 'validate'> {
  /** Reads the fields of the group's object, recording errors on the reader. */
  readonly check: (r: SettingsReader, ctx: SettingsValidationContext) => void
}

/**
 * Builds a group whose value is an object: anything else is `validation_invalid_value` "Must be
 * an object.", and an object is read field by field by `spec.check`.
 */
export function objectGroup<T extends object>(spec: ObjectGroupSpec<T>): SettingsGroup<T> {
  const { check, ...group } = spec
  return {
    ...group,
    validate(value, ctx) {
      if (!isObject(value)) return invalid('an object')
      const r = new SettingsReader(value)
      check(r, ctx)
      return r.errors
    },
  }
}
