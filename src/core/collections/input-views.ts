/**
 * The two views a collection input may use for one value (SPEC §2.4 and PocketBase v0.23's
 * shape), and how an edit in either is told apart from a conflict between them.
 */

/** True for a plain JSON object. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Deep equality of JSON values, ignoring the order of object keys. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((v, i) => sameValue(v, b[i]))
    )
  }
  if (!isObject(a) || !isObject(b)) return false
  const keys = Object.keys(a).filter((k) => a[k] !== undefined)
  if (keys.length !== Object.keys(b).filter((k) => b[k] !== undefined).length) return false
  return keys.every((k) => sameValue(a[k], b[k]))
}

/**
 * Which of the two views of a collection the input used, so that validation errors come back at
 * the paths the client wrote: `schema.N.options.x` or PocketBase's `fields.N.x`, and
 * `authOptions.x` or PocketBase's top-level `x`.
 */
export interface InputShape {
  fieldsKey: 'schema' | 'fields'
  /** Auth option keys taken from the top level of the input. */
  authTopLevel: Set<string>
}

/** One view's reading of a value: `failed` when it did not parse. */
export interface ViewValue {
  value: unknown
  failed: boolean
}

/**
 * Picks between two views of one value: the one that changed it (`unchangedA`/`unchangedB` say
 * whether each reads as the current value), or the first when both say the same; `'conflict'`
 * when both carry different changes.
 */
export function pickEdited(
  a: ViewValue,
  b: ViewValue,
  unchangedA: (value: unknown) => boolean,
  unchangedB: (value: unknown) => boolean = unchangedA,
): 'a' | 'b' | 'conflict' {
  const editedA = a.failed || !unchangedA(a.value)
  const editedB = b.failed || !unchangedB(b.value)
  if (editedA && editedB) {
    return !a.failed && !b.failed && sameValue(a.value, b.value) ? 'a' : 'conflict'
  }
  return editedB ? 'b' : 'a'
}
