import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { initials } from './avatar.js'
import { encodePng1, rowBytes } from './png1.js'
import { ImageCache } from './service.js'

describe('ImageCache', () => {
  it('stays within its byte bound, dropping the least recently used first', () => {
    const cache = new ImageCache(100, 60)
    cache.set('a', Buffer.alloc(40))
    cache.set('b', Buffer.alloc(40))
    expect(cache.get('a')?.length).toBe(40) // a is now the most recent
    cache.set('c', Buffer.alloc(40)) // 120 > 100: b goes
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')).toBeDefined()
    expect(cache.get('c')).toBeDefined()
    expect(cache.size).toBe(80)
    cache.set('big', Buffer.alloc(61)) // over the entry bound: not kept
    expect(cache.get('big')).toBeUndefined()
    expect(cache.size).toBe(80)
  })
})

describe('encodePng1', () => {
  it('writes a 1-bit PNG that sharp reads back pixel for pixel', async () => {
    const width = 13
    const height = 5
    const stride = 1 + rowBytes(width)
    const rows = Buffer.alloc(stride * height, 0xff)
    const black = (x: number, y: number) => (x + y) % 3 === 0
    for (let y = 0; y < height; y++) {
      rows[y * stride] = 0
      for (let x = 0; x < width; x++)
        if (black(x, y)) rows[y * stride + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7))
    }
    const png = await encodePng1(width, height, rows)
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true })
    expect([info.width, info.height]).toEqual([width, height])
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++)
        expect(data[(y * width + x) * info.channels], `${x},${y}`).toBe(black(x, y) ? 0 : 255)
  })
})

describe('initials', () => {
  it('takes the first and last words, Unicode-aware, skipping what cannot be drawn', () => {
    expect(initials('Jean Dupont')).toEqual(['J', 'D'])
    expect(initials('  jean   paul   sartre ')).toEqual(['J', 'S'])
    expect(initials('mary-jane_watson')).toEqual(['M', 'W'])
    expect(initials('e\u0301mile')).toEqual(['E\u0301'])
    expect(initials('🇫🇷 paris')).toEqual(['🇫🇷', 'P'])
    expect(initials('(bob)')).toEqual(['B'])
    expect(initials('...')).toEqual([])
    expect(initials('@alice')).toEqual(['A'])
  })
})
