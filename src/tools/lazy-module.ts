/**
 * CommonJS packages loaded on first use rather than at start: a package a feature needs only
 * when it is used (ZIP archives for backups, QR codes, Web Push, esbuild for hook scripts) then
 * costs nothing in a process that never uses it. Each one was measured: together with their
 * dependencies they held several MB of a fresh server's heap (bench/NOTES.md, "Idle memory").
 */
import { createRequire } from 'node:module'

const load = createRequire(import.meta.url)

/**
 * A function returning the package `name`, loaded synchronously on its first call and kept.
 * A package that fails to load throws from that call (and again from the next one), where the
 * feature using it reports the error as it reported a failing import before.
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= load(name) as T)
}
