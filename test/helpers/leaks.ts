import { createHook } from 'node:async_hooks'
import { readdirSync, readlinkSync } from 'node:fs'

/** The kinds of handles a leak would leave: timers, threads, sockets, servers, watchers. */
const TRACKED = new Set([
  'Timeout',
  'WORKER',
  'TCPWRAP',
  'TCPSERVERWRAP',
  'PIPEWRAP',
  'PIPESERVERWRAP',
  'FSEVENTWRAP',
  'STATWATCHER',
  'SIGNALWRAP',
])

/** The test runner and `settle` below: the handles they make come and go on their own. */
const RUNNER = /node_modules\/(vitest|@vitest|tinypool|birpc)\/|helpers\/leaks\.ts/

/** The first frame of `stack` outside Node's internals and the hook: what made the handle. */
function creator(stack: string): string {
  const frames = stack.split('\n').slice(1)
  return frames.find((f) => !f.includes('(node:') && !f.includes('AsyncHook.init')) ?? ''
}

/** A live handle created while tracking, with where it was made. */
export interface LiveHandle {
  type: string
  stack: string
}

/**
 * Records every timer, worker thread, socket and server created from now on (async_hooks `init`)
 * until it is destroyed. `live()` lists those still open, except those the test runner made.
 */
export function trackHandles(): { live(): LiveHandle[]; stop(): void } {
  const handles = new Map<number, LiveHandle>()
  const limit = Error.stackTraceLimit
  const hook = createHook({
    init(id, type) {
      if (!TRACKED.has(type)) return
      Error.stackTraceLimit = 40
      const stack = new Error().stack ?? ''
      Error.stackTraceLimit = limit
      handles.set(id, { type, stack })
    },
    destroy(id) {
      handles.delete(id)
    },
  })
  hook.enable()
  return {
    live: () => [...handles.values()].filter((h) => !RUNNER.test(creator(h.stack))),
    stop: () => hook.disable(),
  }
}

/** The file descriptors of this process open on files under `dir`, as their paths. */
export function openFilesUnder(dir: string): string[] {
  const out: string[] = []
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`)
      if (target.startsWith(dir)) out.push(target)
    } catch {
      // closed between the listing and the read
    }
  }
  return out.sort()
}

/** `process.getActiveResourcesInfo()` counted by kind. */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1
  return counts
}

/** The kinds of which more resources are active now than in `before`, with both counts. */
export function moreResourcesThan(before: Record<string, number>): Record<string, string> {
  const grown: Record<string, string> = {}
  for (const [kind, n] of Object.entries(activeResources())) {
    if (n > (before[kind] ?? 0)) grown[kind] = `${before[kind] ?? 0} -> ${n}`
  }
  return grown
}

/** Waits (polling the event loop) until `check` holds or `tries` polls passed; returns `check()`. */
export async function settle(check: () => boolean, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries && !check(); i++) await new Promise((r) => setTimeout(r, 20))
  return check()
}
