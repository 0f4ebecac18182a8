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

interface Entry<E extends HookEvent> {
  id: number
  handler: HookHandler<E>
  tags: ReadonlySet<string> | null
}

/** One hook with bind/unbind/trigger; handlers may be limited to tags (collection names). */
export class Hook<E extends HookEvent> {
  private entries: Entry<E>[] = []
  private seq = 0

  /** Adds a handler; with tags it fires only when triggered with one of them. Returns its id. */
  bind(handler: HookHandler<E>, tags?: readonly string[]): number {
    const id = ++this.seq
    this.entries = [...this.entries, { id, handler, tags: tags?.length ? new Set(tags) : null }]
    return id
  }

  /** Removes a handler by id. */
  unbind(id: number): void {
    this.entries = this.entries.filter((e) => e.id !== id)
  }

  /** The number of bound handlers. */
  get length(): number {
    return this.entries.length
  }

  /**
   * Runs the handlers that match `tags` in bind order, then `last` (the built-in action).
   * `event` is the payload without `next`; the same object is passed to every handler.
   */
  async trigger(
    event: Omit<E, 'next'>,
    last: (e: E) => Promise<void> | void,
    tags: readonly string[] = [],
  ): Promise<void> {
    const chain = this.entries.filter((en) => !en.tags || tags.some((t) => en.tags!.has(t)))
    const e = event as E
    let index = 0
    const run = async (): Promise<void> => {
      const i = index++
      const entry = chain[i]
      if (entry) await entry.handler(e)
      else if (i === chain.length) await last(e)
    }
    e.next = run
    await run()
  }
}
