/**
 * The hook scripts of one server: loads every script of the hooks dir in name order, keeps what
 * each bound (routes, middlewares, hooks, jobs) so it can be unbound, reports the files that
 * failed with their position, reloads on demand (`--dev`), and lists everything for
 * `GET /api/functions`. No HTTP here; `routes/` reads the route table and middlewares.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { App } from '../../core/app.js'
import { formatDate } from '../../tools/dates.js'
import { clearCache, CACHE_DIR, ImportFailure, importScript, ScriptLoadError } from './loader.js'
import { BundleMap, errorMessage, errorText, positionIn, type Position } from './locate.js'
import { runPbScript } from './pb/index.js'
import { ScriptRouter } from './router.js'
import {
  createScriptApi,
  createScriptApp,
  ScriptOwner,
  type Middleware,
  type ScriptsContext,
} from './script-app.js'

/** How long a script's default export may run at load before it counts as failed. */
export const LOAD_TIMEOUT_MS = 10_000

/** The file names the loader takes: ES modules of our form and PocketBase's `*.pb.js`. */
export function isScriptName(name: string): boolean {
  return /\.(js|mjs|ts)$/.test(name) && !name.endsWith('.d.ts')
}

/** A file that failed to load: where and why. */
export interface LoadFailure {
  /** The script's name in the hooks dir. */
  file: string
  /** 1-based; null when the failure has no position (a default export missing, …). */
  line: number | null
  column: number | null
  message: string
  /** The file the position is in when it is not the script (a relative import). */
  source?: string
}

/** `GET /api/functions` (SPEC §2.8), with the load failures as `errors`. */
export interface FunctionsListing {
  hooksDir: string
  files: { name: string; sizeBytes: number; modifiedAt: string }[]
  routes: { method: string; pattern: string }[]
  errors: LoadFailure[]
}

/** The hook scripts of an app. */
export class HookScripts implements ScriptsContext {
  readonly router = new ScriptRouter()
  middlewares: readonly Middleware[] = []
  private owners = new Map<string, ScriptOwner>()
  private maps = new Map<string, BundleMap>()
  private failures: LoadFailure[] = []
  private loading: Promise<void> | null = null
  private again = false

  constructor(
    readonly app: App,
    /** The absolute hooks dir, or '' for none. */
    readonly dir: string,
  ) {}

  /**
   * Resolves once a (re)load going on has ended (at once when none is): script routes wait for
   * it, so a request during a `--dev` reload sees the old scripts or the new ones, never none.
   */
  settled(): Promise<void> {
    return this.loading ?? Promise.resolve()
  }

  /** The load failures of the last (re)load. */
  get errors(): readonly LoadFailure[] {
    return this.failures
  }

  /** The script files of the hooks dir, sorted by name (none when the dir does not exist). */
  scriptNames(): string[] {
    if (this.dir === '') return []
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch {
      return []
    }
    return names
      .filter(
        (n) => isScriptName(n) && statSync(join(this.dir, n), { throwIfNoEntry: false })?.isFile(),
      )
      .sort()
  }

  /**
   * Unloads everything, then loads every script again; a reload asked for while one runs runs
   * once more after it. Never throws: failures are logged and listed.
   */
  reload(): Promise<void> {
    if (this.loading) {
      this.again = true
      return this.loading
    }
    const run = async (): Promise<void> => {
      do {
        this.again = false
        this.unloadAll()
        await this.loadAll()
      } while (this.again)
    }
    this.loading = run().finally(() => {
      this.loading = null
    })
    return this.loading
  }

  /** Unbinds everything every script bound. */
  unloadAll(): void {
    for (const owner of this.owners.values()) owner.unload()
    this.owners.clear()
    this.maps.clear()
    this.failures = []
  }

  private async loadAll(): Promise<void> {
    const names = this.scriptNames()
    if (names.length === 0) return
    for (const name of names) {
      const file = join(this.dir, name)
      const owner = new ScriptOwner(file, this)
      this.owners.set(file, owner)
      try {
        await this.loadOne(file, owner)
      } catch (err) {
        this.fail(name, err)
        owner.unload()
        this.owners.delete(file)
        this.maps.delete(file)
      }
    }
    clearCache(this.dir)
    const loaded = this.owners.size
    this.app.logger.info('hook scripts loaded', {
      dir: this.dir,
      loaded,
      failed: this.failures.length,
    })
  }

  private async loadOne(file: string, owner: ScriptOwner): Promise<void> {
    const api = createScriptApi(owner, this)
    if (file.endsWith('.pb.js')) {
      runPbScript(file, readFileSync(file, 'utf8'), api)
      return
    }
    const { exports, map } = await importScript(file, this.dir)
    this.maps.set(file, map)
    const main = exports.default
    if (typeof main !== 'function')
      throw new ScriptLoadError(
        'the default export is not a function: write `export default (app) => { … }`',
        null,
      )
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ScriptLoadError(
              `the default export did not finish within ${LOAD_TIMEOUT_MS / 1000} s`,
              null,
            ),
          ),
        LOAD_TIMEOUT_MS,
      )
      timer.unref()
    })
    try {
      await Promise.race([(main as (app: unknown) => unknown)(createScriptApp(api)), timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Records and logs the failure of `name`. */
  private fail(name: string, err: unknown): void {
    const file = join(this.dir, name)
    let position: Position | null = null
    let message = errorMessage(err)
    let cause = err
    if (err instanceof ScriptLoadError) position = err.position
    else if (err instanceof ImportFailure) {
      cause = err.error
      const missing = /Cannot find (?:package|module) '([^']+)'/.exec(message)
      position = err.map.fromError(cause) ?? (missing ? err.map.importOf(missing[1]!) : null)
      message = err.map.clean(message, name)
    } else {
      const map = this.maps.get(file)
      position = map?.fromError(err) ?? null
      if (!position) {
        // A `*.pb.js` file runs from its own path: its frames name it.
        const at = positionIn(errorText(err), file)
        if (at.line > 0) position = { source: name, line: at.line, column: at.column }
      }
    }
    const failure: LoadFailure = {
      file: name,
      line: position?.line ?? null,
      column: position?.column ?? null,
      message,
    }
    if (position && position.source !== name) failure.source = position.source
    this.failures.push(failure)
    const where = position
      ? `${position.source}:${position.line}${position.column === null ? '' : `:${position.column}`}`
      : name
    this.app.logger.error(`hook script ${where} failed to load: ${message}`, {
      file: name,
      line: failure.line,
      column: failure.column,
      ...(failure.source ? { source: failure.source } : {}),
      error: errorText(cause),
    })
  }

  /**
   * An error thrown by a script's route, middleware or job, described with the script position
   * it comes from (`a.ts:7:9: message`) when the script's bundle is known.
   */
  describe(err: unknown, file: string): string {
    const name = relative(this.dir, file)
    const map = this.maps.get(file)
    const position = map?.fromError(err) ?? null
    const text = map ? map.clean(errorText(err), name) : errorText(err)
    if (!position) return `hook script ${name}: ${text}`
    return `hook script ${position.source}:${position.line}:${position.column ?? 0}: ${text}`
  }

  /** The functions listing: files on disk now, routes bound, failures of the last load. */
  listing(): FunctionsListing {
    const files: FunctionsListing['files'] = []
    for (const name of this.scriptNames()) {
      const st = statSync(join(this.dir, name), { throwIfNoEntry: false })
      if (!st) continue
      files.push({ name, sizeBytes: st.size, modifiedAt: formatDate(st.mtime) })
    }
    return {
      hooksDir: this.dir,
      files,
      routes: this.router.list().map((r) => ({ method: r.method, pattern: r.pattern })),
      errors: [...this.failures],
    }
  }
}

export { CACHE_DIR }
