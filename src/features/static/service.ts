/**
 * Static hosting: maps a request path to a file of the public folder (PocketBase's `pb_public`),
 * refusing every way out of it. Pure resolution on the file system, no Fastify.
 */
import { realpath, stat } from 'node:fs/promises'
import { join, sep } from 'node:path'

/** Requests under these prefixes are never static: the API's and the dashboard's. */
const RESERVED = ['/api', '/_']

/** Cache-Control of HTML (index pages, the SPA fallback): always revalidated (304 when unchanged). */
export const HTML_CACHE_CONTROL = 'no-cache'
/** Cache-Control of other files: not fingerprinted, so a modest lifetime, then revalidated. */
export const ASSET_CACHE_CONTROL = 'public, max-age=3600'

/** Options of static hosting. */
export interface StaticOptions {
  /** The public folder; resolved on every request, so one created after start is served. */
  root: string
  /** Missing extensionless paths answer the root `index.html` (single-page apps). */
  indexFallback: boolean
}

/** What a request path resolves to. */
export type StaticTarget =
  /** A file inside the folder: its path relative to the folder's real path, `/`-separated. */
  | { kind: 'file'; root: string; file: string; html: boolean; size: number; mtime: Date }
  /** A directory asked without its trailing slash: redirect to `location`. */
  | { kind: 'redirect'; location: string }
  /** Nothing to serve: the usual JSON 404. */
  | { kind: 'none' }

const NONE: StaticTarget = { kind: 'none' }

/** A file found inside the folder as the target to serve. */
const fileTarget = (
  root: string,
  f: { file: string; size: number; mtime: Date },
  html: boolean,
): StaticTarget => ({ kind: 'file', root, file: f.file, html, size: f.size, mtime: f.mtime })

/**
 * The decoded segments of a URL path, or null when the path tries anything but plain names:
 * `..`/`.` (also percent-encoded), empty segments (`//`), encoded `/` or `\`, backslashes, NUL,
 * malformed escapes, and dotfiles (`.env`, `.git/`), which are never served.
 */
export function pathSegments(path: string): string[] | null {
  if (!path.startsWith('/') || path.includes('\\')) return null
  const parts = path.slice(1).split('/')
  // A trailing slash leaves one empty last part: the directory itself.
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop()
  const out: string[] = []
  for (const part of parts) {
    let name: string
    try {
      name = decodeURIComponent(part)
    } catch {
      return null
    }
    if (name === '' || name.startsWith('.') || /[/\\\0]/.test(name)) return null
    out.push(name)
  }
  return out
}

/** True when a request path belongs to the API or the dashboard (never shadowed). */
export function isReserved(path: string): boolean {
  return RESERVED.some((p) => path === p || path.startsWith(`${p}/`))
}

/** True when the last segment looks like a file name with an extension (`app.js`, `a.b`). */
function hasExtension(segments: string[]): boolean {
  const last = segments[segments.length - 1]
  return last !== undefined && last.includes('.')
}

/** True when an `Accept` header takes HTML (absent, `*\/*`, `text/*` or `text/html`). */
export function acceptsHtml(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true
  return accept
    .split(',')
    .map((part) => part.split(';'))
    .some(([type, ...params]) => {
      const t = (type ?? '').trim().toLowerCase()
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
      if (q !== undefined && Number(q.slice(2)) === 0) return false
      return t === 'text/html' || t === 'text/*' || t === '*/*'
    })
}

/** The real path of `p`, or null when it does not exist. */
async function real(p: string): Promise<string | null> {
  try {
    return await realpath(p)
  } catch {
    return null
  }
}

/**
 * A regular file at `segments` under the real root, followed through symlinks, only when its
 * real path stays inside the root and no segment of that real path is a dotfile.
 */
async function fileInside(
  rootReal: string,
  segments: string[],
): Promise<{ file: string; isDir: boolean; size: number; mtime: Date } | null> {
  const target = await real(join(rootReal, ...segments))
  if (target === null) return null
  if (target !== rootReal && !target.startsWith(rootReal + sep)) return null // a symlink out
  const rel = target === rootReal ? [] : target.slice(rootReal.length + 1).split(sep)
  if (rel.some((s) => s.startsWith('.'))) return null
  let info
  try {
    info = await stat(target)
  } catch {
    return null
  }
  if (!info.isFile() && !info.isDirectory()) return null
  return {
    file: `/${rel.join('/')}`,
    isDir: info.isDirectory(),
    size: info.size,
    mtime: info.mtime,
  }
}

const isHtml = (file: string) => /\.html?$/i.test(file)

/**
 * Resolves a GET/HEAD request (`url` with its query, as received) to what static hosting answers:
 * a file, a redirect of a directory to its trailing-slash form, or nothing.
 */
export async function resolveStatic(
  opts: StaticOptions,
  url: string,
  accept: string | undefined,
): Promise<StaticTarget> {
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  if (isReserved(path)) return NONE
  const segments = pathSegments(path)
  if (segments === null) return NONE
  const rootReal = await real(opts.root)
  if (rootReal === null) return NONE
  const slash = path.endsWith('/')
  const found = await fileInside(rootReal, segments)
  if (found && !found.isDir && !slash) return fileTarget(rootReal, found, isHtml(found.file))
  if (found?.isDir) {
    const index = await fileInside(rootReal, [...segments, 'index.html'])
    if (index && !index.isDir) {
      if (!slash) return { kind: 'redirect', location: `${path}/${q === -1 ? '' : url.slice(q)}` }
      return fileTarget(rootReal, index, true)
    }
  }
  if (!opts.indexFallback || hasExtension(segments) || !acceptsHtml(accept)) return NONE
  const index = await fileInside(rootReal, ['index.html'])
  if (!index || index.isDir) return NONE
  return fileTarget(rootReal, index, true)
}

/** The weak ETag `@fastify/send` gives a file (size and mtime in hex; test/static.test.ts checks). */
export function weakEtag(size: number, mtime: Date): string {
  return `W/"${size.toString(16)}-${mtime.getTime().toString(16)}"`
}

/**
 * True when `If-Match` or `If-Unmodified-Since` fails for the file (412), with `@fastify/send`'s
 * comparisons: an `If-Match` token matches the ETag as it is or with `W/`; `*` matches any file.
 */
export function preconditionFails(
  headers: { 'if-match'?: string; 'if-unmodified-since'?: string },
  size: number,
  mtime: Date,
): boolean {
  const ifMatch = headers['if-match']
  if (ifMatch && ifMatch.trim() !== '*') {
    const etag = weakEtag(size, mtime)
    const tokens = ifMatch.split(',').map((t) => t.trim())
    if (!tokens.some((t) => t === etag || `W/${t}` === etag)) return true
  }
  const since = headers['if-unmodified-since']
  if (since !== undefined) {
    const limit = Date.parse(since)
    if (!Number.isNaN(limit) && Date.parse(mtime.toUTCString()) > limit) return true
  }
  return false
}
