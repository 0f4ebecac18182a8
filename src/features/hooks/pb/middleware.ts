/**
 * PocketBase's `new Middleware(fn, priority?, id?)` for `*.pb.js` files: a middleware with its
 * place in the chain, for `routerAdd(…, mw)` and `routerUse(mw)`. As in PocketBase, the object
 * shows no members (`Object.keys` is empty); `fn` may be the function or its source text. Where
 * it runs is decided by the route table (`router.ts`, `orderMiddlewares`): lower priority first
 * (default 0, then binding order), a later middleware with the same id replacing an earlier one.
 */
import { messages } from '../../../core/errors.js'

/** What `new Middleware(…)` was given. */
export interface MiddlewareSpec {
  /** The function, or its source text (compiled in the file's context when bound). */
  fn: unknown
  priority: number
  /** '' for none. */
  id: string
}

/** The spec of each `Middleware` object (kept off the object: it shows no members). */
const specs = new WeakMap<object, MiddlewareSpec>()

/** The spec of `v` when it is a `new Middleware(…)`, else undefined. */
export function middlewareSpec(v: unknown): MiddlewareSpec | undefined {
  return typeof v === 'object' && v !== null ? specs.get(v) : undefined
}

/** A priority as PocketBase's Go `int` takes it: a JS number, truncated; anything else 0. */
function priorityOf(v: unknown): number {
  if (v === undefined || v === null) return 0
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new Error(
      messages.pbBadArgument({ name: 'new Middleware', expected: 'a number as priority' }),
    )
  return Math.trunc(v)
}

/** The `Middleware` class of a file's context. */
export function middlewareClass(): (fn: unknown, priority?: unknown, id?: unknown) => object {
  return function Middleware(fn: unknown, priority?: unknown, id?: unknown): object {
    const m = {}
    specs.set(m, {
      fn,
      priority: priorityOf(priority),
      id: typeof id === 'string' ? id : typeof id === 'number' ? `${id}` : '',
    })
    return m
  }
}
