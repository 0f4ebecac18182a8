#!/usr/bin/env node
// Runs the compiled CLI, dist/cli.js: `npm ci` builds it (the `prepare` script), and so do
// `npm run build` and `npm start`.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const built = join(root, 'dist', 'cli.js')
if (!existsSync(built)) {
  console.error(
    `svcbase is not built: ${built} is missing. Run "npm run build" (npm ci does it) first.`,
  )
  process.exit(1)
}
await import(pathToFileURL(built).href)
