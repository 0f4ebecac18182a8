/**
 * The dashboard's built files (`dist/ui`, made by `npm run build` with Vite): found beside the
 * package, read once each and kept in memory with their gzip form, since they are few and small.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, extname, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { mime } from '../../tools/mime.js'

/** One file of the build, as served. */
export interface UiFile {
  body: Buffer
  /** The gzip form, when the type compresses and it is smaller. */
  gzip: Buffer | null
  type: string
  /** Hashed asset names never change content: cache them for a year. */
  immutable: boolean
}

/** Types worth compressing. */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.svg', '.json', '.map', '.txt'])

/** The package root: the nearest folder above this module holding a package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir)
    if (up === dir) throw new Error('svcbase: no package.json above the dashboard module')
    dir = up
  }
  return dir
}

/** The folder the dashboard is built into: `dist/ui` of the package. */
export function defaultUiDir(): string {
  return join(packageRoot(), 'dist', 'ui')
}

/** Reads and caches the files of one build folder. */
export class UiFiles {
  private readonly cache = new Map<string, UiFile | null>()
  private readonly root: string

  constructor(root: string) {
    this.root = resolve(root)
  }

  /** True when the build is there (its `index.html`). */
  get built(): boolean {
    return existsSync(join(this.root, 'index.html'))
  }

  /**
   * The file at `path` (relative to the build, `/`-separated), or null when there is none. Paths
   * are resolved inside the build folder only: `..`, absolute paths and hidden names are refused.
   */
  get(path: string): UiFile | null {
    const hit = this.cache.get(path)
    if (hit !== undefined) return hit
    const file = this.read(path)
    // NB: only found files are kept, so a build made while the server runs is picked up.
    if (file) this.cache.set(path, file)
    return file
  }

  private read(path: string): UiFile | null {
    if (path.split('/').some((part) => part === '..' || part.startsWith('.') || part === ''))
      return null
    const full = resolve(this.root, path)
    if (!full.startsWith(this.root + sep)) return null
    try {
      if (!statSync(full).isFile()) return null
    } catch {
      return null
    }
    const body = readFileSync(full)
    const ext = extname(full).toLowerCase()
    const type = mime().lookup(ext) || 'application/octet-stream'
    let gzip: Buffer | null = null
    if (COMPRESSIBLE.has(ext) && body.length > 512) {
      const packed = gzipSync(body, { level: 9 })
      if (packed.length < body.length) gzip = packed
    }
    const charset = /^(text\/|application\/(javascript|json))/.test(type) ? '; charset=utf-8' : ''
    return { body, gzip, type: type + charset, immutable: path.startsWith('assets/') }
  }
}
