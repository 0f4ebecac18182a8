import { describe, expect, it } from 'vitest'
import { ID_ALPHABET, newId, randomString, sortableId } from './ids.js'

describe('ids', () => {
  it('makes 15-character record ids from [a-z0-9]', () => {
    for (let i = 0; i < 1000; i++) expect(newId()).toMatch(/^[a-z0-9]{15}$/)
  })

  it('draws every character of the alphabet, and only those', () => {
    const seen = new Set(randomString(20_000, 'abc'))
    expect([...seen].sort()).toEqual(['a', 'b', 'c'])
    const counts = new Map<string, number>()
    for (const ch of randomString(36_000, ID_ALPHABET)) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    expect(counts.size).toBe(36)
    for (const n of counts.values()) expect(n).toBeGreaterThan(700) // ~1000 each, no modulo bias
  })

  it('makes time-ordered ids in the record id format', () => {
    const a = sortableId(1_700_000_000_000)
    const b = sortableId(1_700_000_000_001)
    expect(a).toMatch(/^[a-z0-9]{15}$/)
    expect(a < b).toBe(true)
  })
})
