import { describe, expect, it } from 'vitest'
import { Hook, HookNextError, type HookEvent } from './hook.js'

interface E extends HookEvent {
  log: string[]
}

describe('Hook', () => {
  it('runs handlers as an onion around the built-in action', async () => {
    const h = new Hook<E>()
    h.bind(async (e) => {
      e.log.push('a:before')
      await e.next()
      e.log.push('a:after')
    })
    h.bind(async (e) => {
      e.log.push('b:before')
      await e.next()
      e.log.push('b:after')
    })
    const e = { log: [] as string[] }
    await h.trigger(e, (ev) => {
      ev.log.push('action')
    })
    expect(e.log).toEqual(['a:before', 'b:before', 'action', 'b:after', 'a:after'])
  })

  it('lets a handler skip the action by not calling next', async () => {
    const h = new Hook<E>()
    h.bind((e) => {
      e.log.push('stop')
    })
    const e = { log: [] as string[] }
    await h.trigger(e, (ev) => {
      ev.log.push('action')
    })
    expect(e.log).toEqual(['stop'])
  })

  it('fires tagged handlers only for their tags, and unbinds', async () => {
    const h = new Hook<E>()
    h.bind(
      async (e) => {
        e.log.push('posts')
        await e.next()
      },
      ['posts'],
    )
    const id = h.bind(async (e) => {
      e.log.push('all')
      await e.next()
    })
    const a = { log: [] as string[] }
    await h.trigger(a, () => {}, ['users'])
    expect(a.log).toEqual(['all'])
    const b = { log: [] as string[] }
    await h.trigger(b, () => {}, ['posts'])
    expect(b.log).toEqual(['posts', 'all'])
    h.unbind(id)
    expect(h.length).toBe(1)
  })

  it('propagates errors thrown by the action', async () => {
    const h = new Hook<E>()
    h.bind((e) => e.next())
    await expect(
      h.trigger({ log: [] }, () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
  })

  it('returns generated ids, and unbinds several at once or all', async () => {
    const h = new Hook<E>()
    const push = (name: string) => async (e: E) => {
      e.log.push(name)
      await e.next()
    }
    const a = h.bind(push('a'))
    const b = h.bind(push('b'))
    const c = h.bind(push('c'))
    expect(new Set([a, b, c]).size).toBe(3)
    h.unbind(a, c, 'unknown')
    expect(h.length).toBe(1)
    const e = { log: [] as string[] }
    await h.trigger(e, () => {})
    expect(e.log).toEqual(['b'])
    h.unbindAll()
    expect(h.length).toBe(0)
  })

  it('runs handlers by priority (lower first), then in binding order', async () => {
    const h = new Hook<E>()
    const push = (name: string) => async (e: E) => {
      e.log.push(name)
      await e.next()
    }
    h.bind({ func: push('p0-first') })
    h.bind({ priority: 10, func: push('p10') })
    h.bind({ priority: -5, func: push('p-5') })
    h.bind(push('p0-second'))
    const e = { log: [] as string[] }
    await h.trigger(e, (ev) => {
      ev.log.push('action')
    })
    expect(e.log).toEqual(['p-5', 'p0-first', 'p0-second', 'p10', 'action'])
  })

  it('replaces a handler bound again with the same id, in its place', async () => {
    const h = new Hook<E>()
    const push = (name: string) => async (e: E) => {
      e.log.push(name)
      await e.next()
    }
    expect(h.bind({ id: 'audit', func: push('old') })).toBe('audit')
    h.bind(push('other'))
    expect(h.bind({ id: 'audit', func: push('new') })).toBe('audit')
    expect(h.length).toBe(2)
    const e = { log: [] as string[] }
    await h.trigger(e, () => {})
    expect(e.log).toEqual(['new', 'other'])
    h.unbind('audit')
    expect(h.length).toBe(1)
  })

  it('refuses a second e.next() in the same handler', async () => {
    const h = new Hook<E>()
    h.bind(async (e) => {
      await e.next()
      await e.next()
    })
    const e = { log: [] as string[] }
    const run = h.trigger(e, (ev) => {
      ev.log.push('action')
    })
    await expect(run).rejects.toThrow(HookNextError)
    await expect(run).rejects.toThrow('e.next() was called more than once')
    expect(e.log).toEqual(['action'])
  })

  it('refuses a second e.next() even when the first was not awaited', async () => {
    const h = new Hook<E>()
    let second: Promise<void> | null = null
    h.bind(async (e) => {
      const first = e.next()
      second = e.next()
      second.catch(() => {}) // asserted below
      await first
    })
    h.bind(async (e) => {
      e.log.push('inner')
      await e.next()
    })
    const e = { log: [] as string[] }
    await h.trigger(e, (ev) => {
      ev.log.push('action')
    })
    await expect(second).rejects.toThrow(HookNextError)
    expect(e.log).toEqual(['inner', 'action'])
  })

  it('lets handlers change the shared event for the ones after them and the action', async () => {
    const h = new Hook<E & { title: string }>()
    h.bind(async (e) => {
      e.title = `${e.title}!`
      await e.next()
    })
    const e = { log: [] as string[], title: 'hi' }
    await h.trigger(e, (ev) => {
      ev.log.push(ev.title)
    })
    expect(e.log).toEqual(['hi!'])
    expect(e.title).toBe('hi!')
  })
})
