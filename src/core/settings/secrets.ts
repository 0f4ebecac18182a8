import { isObject } from './reader.js'

/**
 * A deep copy of `settings` with every write-only key of `paths` (dotted, SPEC §2.7) removed:
 * the key is absent, not blanked.
 */
export function withoutSecrets(
  settings: object,
  paths: readonly string[],
): Record<string, unknown> {
  const copy = structuredClone(settings) as Record<string, unknown>
  for (const path of paths) {
    const keys = path.split('.')
    const last = keys.pop() ?? ''
    let node: unknown = copy
    for (const k of keys) node = isObject(node) ? node[k] : undefined
    if (isObject(node)) delete node[last]
  }
  return copy
}
