import { describe, expect, it } from 'vitest'
import { serializeLogData } from './data-size.js'

const size = (s: string): number => Buffer.byteLength(s, 'utf8')

describe('serializeLogData', () => {
  const data = { type: 'request', status: 200, url: '/api/x', userAgent: 'a'.repeat(500) }

  it.each([
    ['unlimited', 0],
    ['within the limit', 10_000],
    ['exactly at the limit', size(JSON.stringify(data))],
  ])('keeps data as is when %s', (_name, max) => {
    expect(serializeLogData(data, max)).toBe(JSON.stringify(data))
  })

  it.each([70, 100, 200, 400])('fits %i bytes, shortening the longest strings first', (max) => {
    const out = serializeLogData(data, max)
    expect(size(out)).toBeLessThanOrEqual(max)
    const parsed = JSON.parse(out)
    expect(parsed).toMatchObject({ status: 200, truncated: true })
    expect(data.userAgent.startsWith(parsed.userAgent)).toBe(true)
    if (max >= 100) expect(parsed.url).toBe('/api/x')
  })

  it('turns objects into JSON text before cutting them', () => {
    const out = JSON.parse(serializeLogData({ details: { a: 'x'.repeat(300) }, n: 1 }, 120))
    expect(typeof out.details).toBe('string')
    expect(out.details.startsWith('{"a":"xxx')).toBe(true)
    expect(out).toMatchObject({ n: 1, truncated: true })
  })

  it('counts UTF-8 bytes and never splits a surrogate pair', () => {
    const out = serializeLogData({ s: '😀'.repeat(100), e: 'é'.repeat(100) }, 150)
    expect(size(out)).toBeLessThanOrEqual(150)
    const parsed = JSON.parse(out)
    expect(parsed.s).toMatch(/^(😀)*$/u)
    expect(parsed.e).toMatch(/^é*$/)
  })

  it('escaped characters still fit', () => {
    const out = serializeLogData({ q: '"\\'.repeat(200) }, 80)
    expect(size(out)).toBeLessThanOrEqual(80)
    expect(JSON.parse(out).truncated).toBe(true)
  })

  it('keeps only scalars and the marker when the limit is below them', () => {
    expect(JSON.parse(serializeLogData({ a: 'long text', n: 5 }, 5))).toEqual({
      a: '',
      n: 5,
      truncated: true,
    })
  })
})
