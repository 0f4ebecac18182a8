import { describe, expect, it } from 'vitest'
import { jsonTextDepth } from './json-depth.js'

describe('jsonTextDepth', () => {
  it.each([
    ['1', 0],
    ['"[[["', 0],
    ['[]', 1],
    ['{}', 1],
    ['{"a":[1]}', 2],
    ['[[],[[]],[]]', 3],
    ['{"a":"\\"[[[","b":[{"c":"\\\\"}]}', 3],
    ['["\\\\\\"[["]', 1],
    ['[[[', 3],
    ['["unterminated [[[', 1],
  ])('%s is %i deep', (text, depth) => {
    expect(jsonTextDepth(text, 100)).toBe(depth)
  })

  it('stops as soon as the text is deeper than the limit', () => {
    const text = '['.repeat(1_000_000) + ']'.repeat(1_000_000)
    expect(jsonTextDepth(text, 128)).toBe(129)
    expect(jsonTextDepth('[[[]]]', 3)).toBe(3)
    expect(jsonTextDepth('[[[[]]]]', 3)).toBe(4)
  })
})
