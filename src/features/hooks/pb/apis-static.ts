/**
 * PocketBase's `$apis.static(dir, indexFallback)`: a route handler serving the files of `dir`
 * (a folder of the app's, as `$os.readFile`'s paths) at the route's `{path...}` value, as
 * PocketBase's does: a file is sent with its type; a folder answers its `index.html` (asked
 * without its trailing `/`, a 301 to it); `…/index.html` is a 301 to its folder; anything else
 * is PocketBase's 404 "File not found.", or the root `index.html` when `indexFallback` is set.
 */
import { statSync } from 'node:fs'
import { join, posix } from 'node:path'
import { messages, notFound } from '../../../core/errors.js'
import { mime } from '../../../tools/mime.js'
import type { ScriptRouteEvent } from '../route-event.js'
import type { RouteEvent, RouteHandler } from '../script-api.js'
import { appPath } from './app-files.js'

/** What a path of the folder is: a file, a folder, or nothing. */
function kindOf(path: string): 'file' | 'dir' | null {
  try {
    const info = statSync(path)
    return info.isFile() ? 'file' : info.isDirectory() ? 'dir' : null
  } catch {
    return null
  }
}

/** The route's path without its query (the prefix a redirect keeps). */
const pathOf = (url: string): string => url.split('?')[0] ?? url

/** The handler of `$apis.static(dir, indexFallback)` for a file whose hooks dir is `hooksDir`. */
export function staticHandler(
  hooksDir: string,
  dir: unknown,
  indexFallback: unknown,
): RouteHandler {
  const what = '$apis.static'
  if (typeof dir !== 'string' || dir === '')
    throw new Error(messages.pbBadArgument({ name: what, expected: 'a folder path' }))
  const fallback = indexFallback === true
  return (e: RouteEvent) => {
    const se = e as ScriptRouteEvent
    // The folder is resolved per request (it may be made after the file loaded), inside the
    // app's folders only.
    const root = appPath(hooksDir, dir, what)
    const raw = e.request.pathValue('path')
    // NB: cleaned as a rooted path, so `..` never climbs out of the folder.
    const rel = posix.normalize(`/${raw}`).slice(1)
    const send = (file: string) => {
      const type = mime().contentType(posix.extname(file)) || 'application/octet-stream'
      // A link out of the app's folders is not followed: PocketBase's 404.
      let real: string
      try {
        real = appPath(hooksDir, file, what)
      } catch {
        throw notFound(messages.fileNotFound)
      }
      se.file(real, type)
    }
    const url = pathOf(e.request.url)
    const target = join(root, rel)
    const kind = kindOf(target)
    if (kind === 'file' && posix.basename(rel) === 'index.html') {
      se.redirect(301, url.slice(0, url.length - 'index.html'.length))
      return
    }
    if (kind === 'file') return send(target)
    if (kind === 'dir' && kindOf(join(target, 'index.html')) === 'file') {
      if (rel !== '' && !raw.endsWith('/')) {
        se.redirect(301, `${url}/`)
        return
      }
      return send(join(target, 'index.html'))
    }
    const index = join(root, 'index.html')
    if (fallback && kindOf(index) === 'file') return send(index)
    throw notFound(messages.fileNotFound)
  }
}
