import { describe, expect, it } from 'vitest'
import type { Collection } from './model.js'
import { CollectionRegistry, compareNames } from './registry.js'

const col = (id: string, name: string) => ({ id, name }) as unknown as Collection

describe('CollectionRegistry.adopt', () => {
  it('keeps the changes of two forks committed one after the other', () => {
    const root = new CollectionRegistry([col('a', 'alpha'), col('b', 'beta')])
    const one = root.fork()
    const two = root.fork()
    one.put(col('c', 'gamma'))
    one.put(col('a', 'Alpha2'))
    two.remove('b')
    two.put(col('d', 'delta'))
    root.adopt(one)
    root.adopt(two)
    expect(root.all().map((c) => c.name)).toEqual(['Alpha2', 'delta', 'gamma'])
    expect(root.find('alpha')).toBeUndefined()
    expect(root.find('alpha2')?.id).toBe('a')
    expect(root.find('beta')).toBeUndefined()
  })

  it('leaves forks made earlier as they were, and ignores a fork that changed nothing', () => {
    const root = new CollectionRegistry([col('a', 'alpha')])
    const reader = root.fork()
    const writer = root.fork()
    writer.put(col('b', 'beta'))
    root.adopt(writer)
    root.adopt(reader)
    expect(reader.find('beta')).toBeUndefined()
    expect(root.find('beta')?.id).toBe('b')
    expect(writer.isChanged).toBe(true)
    expect(reader.isChanged).toBe(false)
  })

  it('keeps a change committed meanwhile when a fork re-reads every collection as it was', () => {
    const root = new CollectionRegistry([col('a', 'alpha'), col('b', 'beta')])
    const reload = root.fork()
    const change = root.fork()
    change.put(col('a', 'alpha2'))
    root.adopt(change)
    // The reload read the database before that change committed, and one remote change.
    reload.put(col('a', 'alpha'))
    reload.put(col('b', 'beta'))
    reload.put(col('c', 'gamma'))
    root.adopt(reload)
    expect(root.all().map((c) => c.name)).toEqual(['alpha2', 'beta', 'gamma'])
  })

  it('counts as no change a put equal to the collection held', () => {
    const root = new CollectionRegistry([col('a', 'alpha')])
    const fork = root.fork()
    fork.put(col('a', 'alpha'))
    expect(fork.isChanged).toBe(false)
    fork.put(col('a', 'renamed'))
    expect(fork.isChanged).toBe(true)
  })
})

describe('compareNames', () => {
  it('orders names as localeCompare does (ICU root order), over random \\w+ names', () => {
    const chars = 'aAbBzZ09_'
    let seed = 7
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    const names = Array.from({ length: 3000 }, () =>
      Array.from({ length: 1 + rnd(4) }, () => chars[rnd(chars.length)]).join(''),
    )
    names.push('users', 'Users', 'posts_2', 'posts2', '_superusers', 'a_b', 'ab', 'a1', 'A1')
    const sign = (n: number) => Math.sign(n)
    for (let i = 0; i + 1 < names.length; i++) {
      const [a, b] = [names[i]!, names[i + 1]!]
      expect(sign(compareNames(a, b)), `${a} vs ${b}`).toBe(sign(a.localeCompare(b)))
    }
    expect([...names].sort(compareNames)).toEqual([...names].sort((a, b) => a.localeCompare(b)))
  })
})
