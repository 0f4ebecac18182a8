/**
 * The app a CLI command opens on a data folder: as `serve`'s, it knows the built-in features'
 * system collections (created when missing, kept up to date), without registering the features.
 */
import type { App, AppConfig } from '../core/app.js'
import { createApp } from '../core/create-app.js'
import { builtInSystemCollections } from '../features/index.js'

/** Bootstraps an app over `config` with the built-in features' system collections. */
export function openApp(config: AppConfig): Promise<App> {
  return createApp(config, { systemCollections: builtInSystemCollections() })
}
