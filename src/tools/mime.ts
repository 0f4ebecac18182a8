/**
 * `mime-types`, loaded with the first lookup (tools/lazy-module.ts): its table (mime-db) held
 * ~0.7 MB of an idle server's heap, and a server that stores and serves no file never needs it.
 */
import type mimeTypes from 'mime-types'
import { lazyPackage } from './lazy-module.js'

/** The `mime-types` package (`mime().lookup(name)`, `mime().extension(type)`). */
export const mime = lazyPackage<typeof mimeTypes>('mime-types')
