import { describe, expect, it } from 'vitest'
import type { Collection } from './model.js'
import { CollectionRegistry } from './registry.js'

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
})
