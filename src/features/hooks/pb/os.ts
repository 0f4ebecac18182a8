/**
 * PocketBase's `$os` (the part svcbase offers: `getenv`, and `readFile`/`readDir`/`dirFS` limited
 * to the app's folders, see `app-files.ts`), `$filepath` (Go's `path/filepath` on a Unix host: `base
 * clean dir ext isAbs join match rel split toSlash fromSlash`) and the global `toString(v)`.
 * `readFile` gives PocketBase's byte array (an array of numbers) that `toString` decodes as
 * UTF-8; any other array or object `toString` gives as JSON, as PocketBase's does.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { posix } from 'node:path'
import { ApiError } from '../../../core/errors.js'
import { appPath } from './app-files.js'
import { strict } from './unsupported.js'

/** The longest file `$os.readFile` reads (bytes). */
const MAX_READ = 32 * 1024 * 1024

/** Byte arrays made by `readFile`: `toString` decodes them. */
const byteArrays = new WeakSet<object>()

/** Byte arrays that are views of a buffer (`$http.send`'s `body`): `toString` decodes it. */
const byteViews = new WeakMap<object, Buffer>()

/**
 * `bytes` as a script's byte array (an array of numbers, as PocketBase's Go byte slice) that
 * `toString` decodes: an array is marked; a buffer is read as indexed (no array of millions of
 * numbers built up front).
 */
export function byteArray(bytes: Buffer | number[]): number[] {
  if (Array.isArray(bytes)) {
    byteArrays.add(bytes)
    return bytes
  }
  const index = (key: PropertyKey): number =>
    typeof key === 'string' && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : -1
  const view = new Proxy<number[]>([], {
    get(target, key, receiver) {
      if (key === 'length') return bytes.length
      const i = index(key)
      if (i >= 0) return bytes[i]
      return Reflect.get(target, key, receiver) as unknown
    },
    set(target, key, value, receiver) {
      const i = index(key)
      if (i >= 0 && i < bytes.length) {
        bytes[i] = Number(value) & 0xff
        return true
      }
      return key === 'length' ? false : Reflect.set(target, key, value, receiver)
    },
    has(target, key) {
      const i = index(key)
      return (i >= 0 && i < bytes.length) || Reflect.has(target, key)
    },
    getOwnPropertyDescriptor(target, key) {
      const i = index(key)
      if (i >= 0 && i < bytes.length)
        return { value: bytes[i], writable: true, enumerable: true, configurable: true }
      if (key === 'length')
        return { value: bytes.length, writable: true, enumerable: false, configurable: false }
      return Reflect.getOwnPropertyDescriptor(target, key)
    },
    ownKeys(target) {
      return [
        ...Array.from({ length: bytes.length }, (_, i) => String(i)),
        ...Reflect.ownKeys(target),
      ]
    },
  })
  byteViews.set(view, bytes)
  return view
}

/** PocketBase's `toString(v)`: text as it is, bytes decoded, nothing as '', the rest as JSON. */
export function toText(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return ''
  const view = typeof v === 'object' ? byteViews.get(v) : undefined
  if (view) return view.toString('utf8')
  if (typeof v === 'object' && byteArrays.has(v))
    return Buffer.from((v as number[]).map((n) => n & 0xff)).toString('utf8')
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${v}`
  return JSON.stringify(v) ?? ''
}

/** The folders `$os.dirFS` gave, by their script object. */
const dirs = new WeakMap<object, string>()

/** Go's `os.DirFS(dir)`: a file system rooted at `dir` (a folder of the app's; '' for none). */
function dirFS(dir: string): object {
  if (dir !== '' && !statSync(dir).isDirectory())
    throw new Error(`$os.dirFS: "${dir}" is not a folder`)
  const fsys = strict('$os.dirFS()', {})
  dirs.set(fsys, dir)
  return fsys
}

/** The folder of a file system `$os.dirFS` gave, or undefined for another value. */
export function dirOfFS(v: unknown): string | undefined {
  return typeof v === 'object' && v !== null ? dirs.get(v) : undefined
}

/** The `$os` object of a script whose hooks dir is `hooksDir`. */
export function osGlobal(hooksDir: string): object {
  return strict('$os', {
    getenv: (name: unknown): string => process.env[toText(name)] ?? '',
    readFile: (p: unknown): number[] => {
      const path = appPath(hooksDir, p, '$os.readFile')
      if (statSync(path).size > MAX_READ)
        throw new Error(`$os.readFile: "${toText(p)}" is larger than ${MAX_READ} bytes`)
      const bytes = Array.from(readFileSync(path))
      byteArrays.add(bytes)
      return bytes
    },
    dirFS: (p: unknown): object => {
      let dir: string
      try {
        dir = appPath(hooksDir, p, '$os.dirFS')
      } catch (err) {
        // a missing folder of the app's: as Go's os.DirFS, its files are not found when served
        if (err instanceof ApiError && err.status === 404) return dirFS('')
        throw err
      }
      return dirFS(dir)
    },
    readDir: (p: unknown): object[] => {
      const path = appPath(hooksDir, p, '$os.readDir')
      return readdirSync(path, { withFileTypes: true })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((d) =>
          strict('$os.readDir() entry', { name: () => d.name, isDir: () => d.isDirectory() }),
        )
    },
  })
}

/** Go's `filepath.Clean`. */
function clean(p: string): string {
  if (p === '') return '.'
  const n = posix.normalize(p)
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n
}

function lastSlash(p: string): number {
  return p.lastIndexOf('/')
}

function base(p: string): string {
  if (p === '') return '.'
  const s = p.replace(/\/+$/, '')
  if (s === '') return '/'
  return s.slice(lastSlash(s) + 1)
}

function ext(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i)
  return ''
}

/** Go's `filepath.Match`: `*`, `?`, `[…]` (`^` negates), `\` escapes; none crosses a `/`. */
function match(pattern: string, name: string): boolean {
  let re = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else if (c === '\\') re += `\\${pattern[++i] ?? ''}`
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2)
      if (end === -1) throw new Error('syntax error in pattern')
      let cls = pattern.slice(i + 1, end)
      if (cls.startsWith('^')) cls = `^${cls.slice(1)}`
      re += `[${cls.replace(/\\(?!.)/g, '\\\\')}]`
      i = end
    } else re += c.replace(/[.+^${}()|\]]/g, '\\$&')
  }
  try {
    return new RegExp(`^${re}$`).test(name)
  } catch {
    throw new Error('syntax error in pattern')
  }
}

/** The `$filepath` object. */
export function filepathGlobal(): object {
  const str = (v: unknown): string => toText(v)
  return strict('$filepath', {
    base: (p: unknown) => base(str(p)),
    clean: (p: unknown) => clean(str(p)),
    dir: (p: unknown) => {
      const s = str(p)
      return clean(s.slice(0, lastSlash(s) + 1))
    },
    ext: (p: unknown) => ext(str(p)),
    isAbs: (p: unknown) => str(p).startsWith('/'),
    join: (...parts: unknown[]) => {
      const kept = parts.map(str).filter((s) => s !== '')
      return kept.length === 0 ? '' : clean(kept.join('/'))
    },
    match: (pattern: unknown, name: unknown) => match(str(pattern), str(name)),
    rel: (from: unknown, to: unknown) => {
      const a = clean(str(from))
      const b = clean(str(to))
      if (a.startsWith('/') !== b.startsWith('/'))
        throw new Error(`Rel: can't make ${str(to)} relative to ${str(from)}`)
      return posix.relative(a, b) || '.'
    },
    split: (p: unknown) => {
      const s = str(p)
      const i = lastSlash(s)
      return [s.slice(0, i + 1), s.slice(i + 1)]
    },
    toSlash: (p: unknown) => str(p),
    fromSlash: (p: unknown) => str(p),
  })
}
