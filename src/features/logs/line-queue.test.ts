import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { SqliteBackgroundWriter } from '../../store/sqlite/background-writer.js'
import { LineQueue, parseLines } from './line-queue.js'

const rows = (n: number): unknown[][] =>
  Array.from({ length: n }, (_, i) => [
    `id${i}`,
    i % 3 === 0 ? 8 : 0,
    `GET /x?q=${'é🙂\n"\\'.repeat(i % 4)}`,
    JSON.stringify({ url: `/x/${i}`, n: i, nested: { quote: '"' } }),
    null,
  ])

describe('LineQueue', () => {
  it('gives back every row as queued, across growth, and starts empty after take', () => {
    const q = new LineQueue()
    const want = rows(5000)
    for (const r of want) q.push(r)
    expect(q.count).toBe(5000)
    const { lines, count } = q.take()
    expect(count).toBe(5000)
    // NB: the bytes own their buffer, so they can be transferred to a worker.
    expect(lines.byteOffset).toBe(0)
    expect(lines.byteLength).toBe(lines.buffer.byteLength)
    expect(parseLines(lines)).toEqual(want)
    expect(q.count).toBe(0)
    q.push(['again'])
    expect(parseLines(q.take().lines)).toEqual([['again']])
    expect(parseLines(q.take().lines)).toEqual([])
  })
})

describe('SqliteBackgroundWriter.insertLines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-lines-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('inserts every row in full chunks and the remainder, values as queued', async () => {
    const file = join(dir, 'a.db')
    const db = new Database(file)
    db.exec('CREATE TABLE "we""ird" (id TEXT PRIMARY KEY, level INTEGER, message, data, x)')
    const writer = new SqliteBackgroundWriter(file)
    try {
      for (const n of [1, 128, 300]) {
        const q = new LineQueue()
        const want = rows(n).map(([id, ...rest]) => [`${n}-${String(id)}`, ...rest])
        for (const r of want) q.push(r)
        await writer.insertLines('we"ird', ['id', 'level', 'message', 'data', 'x'], q.take().lines)
        const got = db
          .prepare(
            'SELECT id, level, message, data, x FROM "we""ird" WHERE id LIKE ? ORDER BY rowid',
          )
          .raw()
          .all(`${n}-%`)
        expect(got).toEqual(want)
      }
      // A failing batch rejects and leaves nothing of itself.
      const q = new LineQueue()
      q.push(['dup', 0, '', '', null])
      q.push(['dup', 0, '', '', null])
      await expect(
        writer.insertLines('we"ird', ['id', 'level', 'message', 'data', 'x'], q.take().lines),
      ).rejects.toThrow(/UNIQUE/)
      expect(db.prepare('SELECT COUNT(*) AS n FROM "we""ird" WHERE id = ?').get('dup')).toEqual({
        n: 0,
      })
    } finally {
      await writer.close()
      db.close()
    }
  })
})
