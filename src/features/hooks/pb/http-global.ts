/**
 * The `$http` global of `*.pb.js` files and `pb_migrations` files: PocketBase's `$http.send`,
 * synchronous for the script, made by replay (`invocation.ts` for handlers, `migrate/replay.ts`
 * for migrations); the request itself is `http-send.ts`.
 */
import type { App } from '../../../core/app.js'
import { messages } from '../../../core/errors.js'
import {
  guardOf,
  MAX_SENDS,
  performSend,
  sendConfigOf,
  sendKey,
  sendResult,
  type SendAnswer,
} from './http-send.js'
import { awaitOnce, currentApp } from './invocation.js'
import type { Replay } from './migrate/replay.js'
import { strict } from './unsupported.js'

/** `$http` of a hook file: a send in a handler stops the run, is made, and the handler runs again. */
export function httpGlobal(fallback: App): object {
  return strict('$http', {
    send: (config: unknown): object => {
      const c = sendConfigOf(config)
      const app = currentApp() ?? fallback
      const answer = awaitOnce('$http.send', sendKey(c), () => performSend(c, guardOf(app)))
      return sendResult(answer as SendAnswer)
    },
  })
}

/** Sends made per migration step (a step's replay), to bound them. */
const counts = new WeakMap<Replay, number>()

/** `$http` of a migration file: each send is an asynchronous op of the step's replay. */
export function migrationHttpGlobal(current: () => { tx: App; replay: Replay } | null): object {
  return strict('$http', {
    send: (config: unknown): object => {
      const run = current()
      if (!run) throw new Error(messages.pbOutsideHandler({ name: '$http.send' }))
      const c = sendConfigOf(config)
      const { tx, replay } = run
      return replay.async(
        () => {
          const n = (counts.get(replay) ?? 0) + 1
          counts.set(replay, n)
          if (n > MAX_SENDS)
            return Promise.reject(
              new Error(`$http.send: at most ${MAX_SENDS} calls per migration (svcbase's limit)`),
            )
          return performSend(c, guardOf(tx))
        },
        (v) => sendResult(v as SendAnswer),
      )
    },
  })
}
