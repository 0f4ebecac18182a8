/**
 * Validation of a settings change (SPEC §2.7, reference §11) over a table of groups: the patch
 * may only name known keys, and the merged result must hold the right JSON types and valid
 * values, group by group. Errors nest like the settings (`{smtp: {host: {code, message}}}`,
 * array items by index) and use PocketBase's codes.
 */

import { hasErrors, validationError, type ValidationErrors } from '../errors.js'
import type { SettingsGroup, SettingsValidationContext } from './group.js'
import { SettingsReader, define, invalid, isFieldError, isObject } from './reader.js'

/** `validation_unknown_field` for every key of `patch` that `template` does not have. */
function unknownKeys(
  patch: unknown,
  template: unknown,
  path: string,
  itemKeys: ReadonlyMap<string, readonly string[]>,
): ValidationErrors {
  const errors: ValidationErrors = {}
  const keys = itemKeys.get(path)
  if (isObject(patch) && isObject(template)) {
    for (const [k, v] of Object.entries(patch)) {
      const sub = Object.hasOwn(template, k)
        ? unknownKeys(v, template[k], path ? `${path}.${k}` : k, itemKeys)
        : validationError('validation_unknown_field')
      if (isFieldError(sub) || hasErrors(sub)) define(errors, k, sub)
    }
  } else if (Array.isArray(patch) && keys) {
    // The keys of one list item (the default list may be empty).
    const item = Object.fromEntries(keys.map((k) => [k, null]))
    patch.forEach((value, i) => {
      const sub = unknownKeys(value, item, `${path}[]`, itemKeys)
      if (hasErrors(sub)) errors[String(i)] = sub
    })
  }
  return errors
}

/** Deep-merges two error maps; on a clash the first error wins. */
function mergeErrors(a: ValidationErrors, b: ValidationErrors): ValidationErrors {
  const out: ValidationErrors = { ...a }
  for (const [k, v] of Object.entries(b)) {
    const mine = Object.hasOwn(out, k) ? out[k] : undefined
    if (mine === undefined) define(out, k, v)
    else if (!isFieldError(mine) && !isFieldError(v)) define(out, k, mergeErrors(mine, v))
  }
  return out
}

/**
 * Validates a settings change against `groups`: `patch` as sent (unknown keys at any level are
 * refused, unknown groups too) and `next`, the patch deep-merged onto the current settings
 * (each group's validator). Returns the field errors, empty when valid.
 */
export function validateGroups(
  groups: readonly SettingsGroup[],
  patch: Record<string, unknown>,
  next: unknown,
  ctx: SettingsValidationContext,
): ValidationErrors {
  const template = Object.fromEntries(groups.map((g) => [g.key, g.defaults()]))
  const itemKeys = new Map(
    groups.flatMap((g) =>
      Object.entries(g.itemKeys ?? {}).map(([path, keys]) => [`${g.key}.${path}`, keys] as const),
    ),
  )
  const unknown = unknownKeys(patch, template, '', itemKeys)
  if (!isObject(next)) return mergeErrors(unknown, { '': invalid('an object') })
  const top = new SettingsReader(next)
  // NB: groups whose value is an object report first, lists (superuserIPs) after them: the
  // order the error keys have always had on the wire.
  const objectsFirst = [
    ...groups.filter((g) => isObject(g.defaults())),
    ...groups.filter((g) => !isObject(g.defaults())),
  ]
  for (const group of objectsFirst) top.fail(group.key, group.validate(next[group.key], ctx))
  return mergeErrors(unknown, top.errors)
}
