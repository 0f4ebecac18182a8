/**
 * The `--dev` watcher of the hooks dir: a change anywhere under it (a script, a module it
 * imports) calls `onChange` once the changes settle. The bundle cache folder is not watched.
 */
import { watch, type FSWatcher } from 'node:fs'
import type { Logger } from '../../core/logger.js'
import { CACHE_DIR } from './loader.js'

/** How long the directory must be quiet before a reload, in ms. */
export const DEBOUNCE_MS = 150

/** Watches `dir`; returns the function that stops watching (null when it cannot be watched). */
export function watchDir(
  dir: string,
  onChange: () => void,
  logger: Logger,
  debounceMs = DEBOUNCE_MS,
): (() => void) | null {
  let watcher: FSWatcher
  try {
    watcher = watch(dir, { recursive: true, persistent: false })
  } catch (err) {
    logger.warn('hook scripts: the hooks dir cannot be watched; no reload on change', {
      dir,
      error: String(err),
    })
    return null
  }
  let timer: NodeJS.Timeout | null = null
  watcher.on('change', (_event, name) => {
    const file = String(name ?? '')
    if (file === CACHE_DIR || file.startsWith(`${CACHE_DIR}/`) || file.includes('node_modules'))
      return
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = null
      onChange()
    }, debounceMs)
    timer.unref()
  })
  watcher.on('error', (err) => {
    logger.warn('hook scripts: watching the hooks dir failed', { dir, error: String(err) })
  })
  return () => {
    if (timer) clearTimeout(timer)
    timer = null
    watcher.close()
  }
}
