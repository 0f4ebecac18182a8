/**
 * Loads one hook script of our form (`*.js`, `*.mjs`, `*.ts`) as an ES module. esbuild bundles
 * the script with its relative imports (TypeScript transformed on the way), leaving packages
 * and Node's modules as imports; the bundle is written into a cache folder inside the hooks dir
 * (so `node_modules` resolves from there as it would from the script) under a fresh name, so a
 * reload imports the new code, imported, then deleted. Its source map turns positions back into
 * the script's lines.
 */
import { mkdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Message } from 'esbuild'
import { lazyPackage } from '../../tools/lazy-module.js'
import { BundleMap, errorMessage, type Position } from './locate.js'

/** The folder of the bundles, inside the hooks dir (the loader and the watcher skip it). */
export const CACHE_DIR = '.svc_cache'

/** esbuild, loaded with the first hook script (tools/lazy-module.ts). */
const loadEsbuild = lazyPackage<typeof import('esbuild')>('esbuild')

/** Bundles written by this process, for unique names. */
let bundles = 0

/** A load failure with the script position it points at. */
export class ScriptLoadError extends Error {
  constructor(
    message: string,
    readonly position: Position | null,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'ScriptLoadError'
  }
}

/** A loaded module and the map from its bundle back to its sources. */
export interface LoadedModule {
  exports: Record<string, unknown>
  map: BundleMap
}

/** The first error of a failed esbuild run, with its position. */
function buildFailure(err: unknown, hooksDir: string): ScriptLoadError {
  const errors = (err as { errors?: Message[] }).errors
  const first = errors?.[0]
  if (!first) return new ScriptLoadError(errorMessage(err), null, { cause: err })
  const loc = first.location
  const position = loc
    ? {
        source: relative(hooksDir, join(hooksDir, loc.file)),
        line: loc.line,
        column: loc.column + 1,
      }
    : null
  return new ScriptLoadError(first.text, position, { cause: err })
}

/**
 * Bundles and imports `file` (the bundle's name is unique across processes and apps sharing the
 * hooks dir, and across reloads, so the import is never an old module from Node's cache).
 * Throws a {@link ScriptLoadError} for a syntax error or a missing relative import (with its
 * position), and the module's own error (with the bundle's map attached) when importing fails.
 */
export async function importScript(file: string, hooksDir: string): Promise<LoadedModule> {
  const cache = join(hooksDir, CACHE_DIR)
  const stem = basename(file).replace(/\.[^.]+$/, '')
  const bundle = join(cache, `${stem}.${process.pid}.${++bundles}.mjs`)
  const esbuild = loadEsbuild()
  let outputs
  try {
    const result = await esbuild.build({
      entryPoints: [file],
      absWorkingDir: hooksDir,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      write: false,
      sourcemap: 'external',
      sourcesContent: false,
      outfile: bundle,
      logLevel: 'silent',
      // The script sees its own location, not the bundle's.
      define: {
        'import.meta.url': JSON.stringify(pathToFileURL(file).href),
        'import.meta.filename': JSON.stringify(file),
        'import.meta.dirname': JSON.stringify(dirname(file)),
      },
    })
    outputs = result.outputFiles
  } catch (err) {
    throw buildFailure(err, hooksDir)
  }
  const code = outputs.find((o) => o.path === bundle)?.text ?? ''
  const mapText = outputs.find((o) => o.path === `${bundle}.map`)?.text ?? '{}'
  const map = new BundleMap(bundle, code, mapText, hooksDir)
  mkdirSync(cache, { recursive: true })
  writeFileSync(bundle, code)
  try {
    const exports = (await import(pathToFileURL(bundle).href)) as Record<string, unknown>
    return { exports, map }
  } catch (err) {
    throw new ImportFailure(err, map)
  } finally {
    rmSync(bundle, { force: true })
  }
}

/** An error raised while importing a bundle, with the bundle's map to locate it. */
export class ImportFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly map: BundleMap,
  ) {
    super(errorMessage(error))
    this.name = 'ImportFailure'
  }
}

/** Removes the cache folder once empty (each bundle is deleted after its import). */
export function clearCache(hooksDir: string): void {
  try {
    rmdirSync(join(hooksDir, CACHE_DIR))
  } catch {
    // absent, or holding the bundles of another app loading the same folder
  }
}
