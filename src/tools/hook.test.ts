import { describe, expect, it } from 'vitest'
import { Hook, type HookEvent } from './hook.js'

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
})
