#!/usr/bin/env node
// Runs the compiled CLI when built (npm run build), else the TypeScript sources through tsx.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const built = join(root, 'dist', 'cli.js')
if (existsSync(built)) {
  await import(pathToFileURL(built).href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import(pathToFileURL(join(root, 'src', 'cli.ts')).href)
}
