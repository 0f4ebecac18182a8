/**
 * Where in a script an error happened. Scripts run from a bundle that esbuild wrote (see
 * `loader.ts`); its source map turns a position in the bundle back into the script's own file,
 * line and column, for load failures and for the errors of route handlers.
 */
import { SourceMap } from 'node:module'
import { dirname, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

/** A position in a script's sources: `source` relative to the hooks dir, 1-based line and column. */
export interface Position {
  source: string
  line: number
  column: number | null
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The first `<file>:<line>[:<column>]` of `text` (a stack or an error message) for `file`,
 * written as a path or a `file:` URL.
 */
export function positionIn(text: string, file: string): { line: number; column: number | null } {
  const names = [pathToFileURL(file).href, file].map(escape).join('|')
  const m = new RegExp(`(?:${names}):(\\d+)(?::(\\d+))?`).exec(text)
  if (!m) return { line: 0, column: null }
  return { line: Number(m[1]), column: m[2] === undefined ? null : Number(m[2]) }
}

/** The text of an error's stack, or its message, or the thrown value itself. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.stack ?? err.message
  return String(err)
}

/** The one-line message of a thrown value. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}

/** A bundle written for one script, and the way back to the script's sources. */
export class BundleMap {
  private readonly map: SourceMap
  private readonly lines: string[]

  constructor(
    /** The bundle's path. */
    readonly bundle: string,
    code: string,
    mapText: string,
    private readonly hooksDir: string,
  ) {
    this.map = new SourceMap(JSON.parse(mapText) as ConstructorParameters<typeof SourceMap>[0])
    this.lines = code.split('\n')
  }

  /** The script position of a 1-based bundle position (the line's first code when no column). */
  position(line: number, column: number | null): Position | null {
    if (line < 1) return null
    const text = this.lines[line - 1] ?? ''
    const col = column ?? text.length - text.trimStart().length + 1
    const entry = this.map.findEntry(line - 1, Math.max(0, col - 1)) as Partial<{
      originalSource: string
      originalLine: number
      originalColumn: number
    }>
    if (!entry.originalSource || entry.originalLine === undefined) return null
    const source = relative(this.hooksDir, resolve(dirname(this.bundle), entry.originalSource))
    return {
      source,
      line: entry.originalLine + 1,
      column: column === null ? null : (entry.originalColumn ?? 0) + 1,
    }
  }

  /** The script position of the first bundle frame in an error's stack, or null. */
  fromError(err: unknown): Position | null {
    const { line, column } = positionIn(errorText(err), this.bundle)
    return this.position(line, column)
  }

  /** The script position of the import of a package `specifier` (a bare import that failed). */
  importOf(specifier: string): Position | null {
    const quoted = new RegExp(`["'\`]${escape(specifier)}(?:/[^"'\`]*)?["'\`]`)
    const i = this.lines.findIndex((l) => quoted.test(l) && /\b(import|from|require)\b/.test(l))
    if (i < 0) return null
    const col = (this.lines[i] ?? '').search(quoted) + 1
    return this.position(i + 1, col)
  }

  /** A text (a stack) with each bundle position replaced by its script position. */
  clean(text: string, file: string): string {
    const names = [pathToFileURL(this.bundle).href, this.bundle].map(escape).join('|')
    return text.replace(new RegExp(`(?:${names})(?::(\\d+)(?::(\\d+))?)?`, 'g'), (_m, l, c) => {
      if (l === undefined) return file
      const p = this.position(Number(l), c === undefined ? null : Number(c))
      if (!p) return file
      return `${p.source}:${p.line}${p.column === null ? '' : `:${p.column}`}`
    })
  }
}
