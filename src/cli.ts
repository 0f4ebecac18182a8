#!/usr/bin/env node
/**
 * The `svcbase` command's entry: it holds V8's young generation small while the CLI's modules
 * load (see `cli/heap.ts`), then imports the CLI itself (`cli/main.ts`), which runs the command.
 * Nothing else may be imported statically here: every static import loads before this body runs.
 */
import { holdYoungGeneration } from './cli/heap.js'

holdYoungGeneration()
await import('./cli/main.js')
