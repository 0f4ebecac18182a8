/**
 * An onion of async handlers: each calls `await e.next()` to run the rest of the chain, so code
 * before it runs "before" and code after it runs "after". The built-in action is bound last, so
 * user handlers can wrap it or skip it by not calling `next`. *(PocketBase tools/hook.)*
 */

/** What every hook event carries: the continuation of the chain. */
export interface HookEvent {
  next(): Promise<void>
}

/** A handler of one hook. */
export type HookHandler<E extends HookEvent> = (e: E) => Promise<void> | void

/** A handler with its id and priority, as PocketBase's `hook.Handler`. */
export interface HookHandlerOptions<E extends HookEvent> {
  /** Binding an id that is already bound replaces that handler in its place. */
  id?: string
  /** Lower runs first; equal priorities run in binding order. Default 0. */
  priority?: number
  func: HookHandler<E>
}

interface Entry<E extends HookEvent> {
  id: string
  priority: number
  /** Binding order, kept when a handler is replaced by id. */
  order: number
  func: HookHandler<E>
  tags: ReadonlySet<string> | null
}

/** The `next` of an event outside any handler: nothing more to run. */
const endOfChain = (): Promise<void> => Promise.resolve()

/** Thrown by a second `e.next()` in the same handler. */
export class HookNextError extends Error {
  constructor() {
    super('e.next() was called more than once in the same hook handler')
    this.name = 'HookNextError'
  }
}

/**
 * One hook with bind/unbind/trigger; handlers may be limited to tags (collection names or ids).
 * The handler list is replaced, never mutated, so binding during a trigger does not disturb it.
 */
export class Hook<E extends HookEvent> {
  private entries: Entry<E>[] = []
  private seq = 0

  /**
   * Adds a handler (a function, or `{id, priority, func}`); with tags it fires only when
   * triggered with one of them. Returns the handler id, generated when not given.
   */
  bind(handler: HookHandler<E> | HookHandlerOptions<E>, tags?: readonly string[]): string {
    const opts = typeof handler === 'function' ? { func: handler } : handler
    const id = opts.id ?? this.newId()
    const old = this.entries.find((en) => en.id === id)
    const entry: Entry<E> = {
      id,
      priority: opts.priority ?? 0,
      order: old?.order ?? ++this.seq,
      func: opts.func,
      tags: tags?.length ? new Set(tags) : null,
    }
    this.entries = [...this.entries.filter((en) => en.id !== id), entry].sort(
      (a, b) => a.priority - b.priority || a.order - b.order,
    )
    return id
  }

  /** Removes the handlers with these ids (unknown ids are ignored). */
  unbind(...ids: string[]): void {
    const gone = new Set(ids)
    this.entries = this.entries.filter((en) => !gone.has(en.id))
  }

  /** Removes every handler. */
  unbindAll(): void {
    this.entries = []
  }

  /** The number of bound handlers. */
  get length(): number {
    return this.entries.length
  }

  /** The ids of the bound handlers, in running order (built-in ones start with `__svc`). */
  ids(): string[] {
    return this.entries.map((en) => en.id)
  }

  /**
   * Runs the handlers that match `tags` by priority, then `last` (the built-in action).
   * `event` is the payload without `next`; every handler sees the same object (through a view
   * that gives it its own `next`, so a second call in one handler throws `HookNextError`).
   */
  async trigger(
    event: Omit<E, 'next'>,
    last: (e: E) => Promise<void> | void,
    tags: readonly string[] = [],
  ): Promise<void> {
    const e = event as E
    // The end of the chain: a `next` outside any handler does nothing.
    e.next = endOfChain
    // NB: the common case, no handler bound, runs the built-in action with nothing around it:
    // every request passes through several families, and the chain costs a measurable share.
    if (this.entries.length === 0) return last(e)
    const chain = this.entries.filter((en) => !en.tags || tags.some((t) => en.tags!.has(t)))
    if (chain.length === 0) return last(e)
    await runOnion(
      e,
      chain.map((en) => en.func),
      () => last(e),
    )
  }

  private newId(): string {
    let id: string
    do id = `h${++this.seq}`
    while (this.entries.some((en) => en.id === id))
    return id
  }
}

/**
 * Runs `fns` as an onion around `last`: each gets a view of `e` whose `next()` runs the rest (a
 * second call throws `HookNextError`); one that does not call it ends the chain there. Writes
 * through the view go to `e`.
 */
export function runOnion<E extends HookEvent>(
  e: E,
  fns: readonly ((e: E) => unknown)[],
  last: () => Promise<void> | void,
): Promise<void> {
  const run = async (i: number): Promise<void> => {
    const fn = fns[i]
    if (!fn) return last()
    let called = false
    const next = (): Promise<void> => {
      if (called) return Promise.reject(new HookNextError())
      called = true
      return run(i + 1)
    }
    const view = new Proxy(e, {
      get: (target, key, receiver) =>
        key === 'next' ? next : (Reflect.get(target, key, receiver) as unknown),
    })
    await fn(view)
  }
  return run(0)
}
