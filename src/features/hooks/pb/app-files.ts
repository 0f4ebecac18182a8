/**
 * The files a `*.pb.js` script may read (`$template.loadFiles`, `$os.readFile`, `$os.readDir`):
 * only inside the app's folders, the hooks dir and its parent folder, after following links.
 * A path elsewhere is an error naming it; a missing path inside them is PocketBase's 404.
 */
import { realpathSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import { notFound } from '../../../core/errors.js'

/** True when `path` is `dir` or under it. */
function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

function real(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return resolve(p)
  }
}

/**
 * The real path of `p` (absolute, or relative to the hooks dir) for `what` (the call, for the
 * error), when it exists inside the app's folders.
 */
export function appPath(hooksDir: string, p: unknown, what: string): string {
  if (typeof p !== 'string' || p === '')
    throw new Error(`${what}: a path must be a non-empty string`)
  const roots = [hooksDir, dirname(hooksDir)].map(real)
  const path = resolve(hooksDir, p)
  let found: string
  try {
    found = realpathSync(path)
  } catch {
    if (!roots.some((r) => inside(r, path)))
      throw new Error(`${what}: "${p}" is outside the app's folders (the hooks dir and its parent)`)
    throw notFound()
  }
  if (!roots.some((r) => inside(r, found)))
    throw new Error(`${what}: "${p}" is outside the app's folders (the hooks dir and its parent)`)
  return found
}
