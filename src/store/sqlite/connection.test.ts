import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { CachedConnection } from './connection.js'

describe('CachedConnection', () => {
  it('keeps statements in use when the cache is full, and stays bounded', () => {
    const conn = new CachedConnection(new Database(':memory:'))
    const hot = conn.prepare('SELECT 0 AS hot')
    const early = conn.prepare('SELECT 1 AS n')
    for (let i = 2; i <= 2000; i++) {
      conn.prepare(`SELECT ${i} AS n`)
      // The hot statement is used between every new one: it must never be prepared again.
      expect(conn.prepare('SELECT 0 AS hot')).toBe(hot)
    }
    const size = (conn as unknown as { cache: Map<string, unknown> }).cache.size
    expect(size).toBeLessThanOrEqual(500)
    // An unused statement from long ago was dropped: preparing it again gives a new object.
    expect(conn.prepare('SELECT 1 AS n')).not.toBe(early)
    expect(conn.prepare('SELECT 2000 AS n')).toBe(conn.prepare('SELECT 2000 AS n'))
  })
})
