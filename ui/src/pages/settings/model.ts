/**
 * The settings page's data: dotted-path access into the settings object, the patch a section
 * saves (only its own keys, secrets only when replaced or cleared) and the nested field errors of
 * `PATCH /api/settings` flattened to dotted paths.
 */

/** Any JSON object. */
export type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The value at a dotted path (`smtp.port`, `rateLimits.rules`), or undefined. */
export function getAt(root: unknown, path: string): unknown {
  let node = root
  for (const k of path.split('.')) node = isObj(node) ? node[k] : undefined
  return node
}

/** A copy of `root` with `value` at a dotted path (objects on the way are copied, not shared). */
export function setAt(root: Obj, path: string, value: unknown): Obj {
  const [head, ...rest] = path.split('.')
  const key = head!
  const copy: Obj = { ...root }
  if (rest.length === 0) copy[key] = value
  else copy[key] = setAt(isObj(root[key]) ? root[key] : {}, rest.join('.'), value)
  return copy
}

/** A deep copy of a JSON value (undefined stays undefined). */
export const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T))

/** A pending change of a write-only key: a new value, or clearing it. */
export type SecretEdit = { kind: 'replace'; value: string } | { kind: 'clear' }

/** The pending secret changes by path; a path not in it keeps its stored value. */
export type SecretEdits = Record<string, SecretEdit | undefined>

/** The value a secret edit sends: the new value, `""` to clear, undefined when nothing changes. */
export function secretValue(edit: SecretEdit | undefined): string | undefined {
  if (!edit) return undefined
  if (edit.kind === 'clear') return ''
  return edit.value === '' ? undefined : edit.value
}

/**
 * The patch that saves `paths` (dotted) of `draft`, plus the secret edits under them. Paths of
 * write-only keys are left out unless edited, so an untouched secret keeps its value.
 */
export function buildPatch(
  draft: Obj,
  paths: readonly string[],
  secretPaths: readonly string[],
  edits: SecretEdits,
): Obj {
  let patch: Obj = {}
  for (const p of paths) {
    if (secretPaths.includes(p)) continue
    const v = getAt(draft, p)
    if (v !== undefined) patch = setAt(patch, p, clone(v))
  }
  for (const [p, edit] of Object.entries(edits)) {
    const v = secretValue(edit)
    if (v !== undefined && paths.includes(p)) patch = setAt(patch, p, v)
  }
  return patch
}

/** True when `paths` of `draft` differ from `saved`, or a secret under them was edited. */
export function isDirty(
  draft: Obj,
  saved: Obj,
  paths: readonly string[],
  edits: SecretEdits,
): boolean {
  for (const p of paths) {
    if (secretValue(edits[p]) !== undefined) return true
    if (JSON.stringify(getAt(draft, p)) !== JSON.stringify(getAt(saved, p))) return true
  }
  return false
}

/**
 * The field errors of an API error, by dotted path (`smtp.port`, `rateLimits.rules.0.label`):
 * every `{message}` found in the nested `data`.
 */
export function flatErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (node: unknown, prefix: string) => {
    if (!isObj(node)) return
    if (typeof node.message === 'string' && typeof node.code === 'string') {
      out[prefix] = node.message
      return
    }
    for (const [k, v] of Object.entries(node)) walk(v, prefix ? `${prefix}.${k}` : k)
  }
  walk((err as { response?: { data?: unknown } } | null)?.response?.data, '')
  return out
}

/** The errors at a path or under it (`superuserIPs` gets `superuserIPs.1` too), joined. */
export function errorAt(errors: Record<string, string>, path: string): string | undefined {
  const found = Object.entries(errors)
    .filter(([k]) => k === path || k.startsWith(`${path}.`))
    .map(([k, m]) => (k === path ? m : `${k.slice(path.length + 1)}: ${m}`))
  return found.length ? found.join(' ') : undefined
}
