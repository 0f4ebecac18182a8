import { describe, expect, it } from 'vitest'
import { formatSseComment, formatSseMessage, SseFormatError, type SseMessage } from './sse.js'

describe('formatSseMessage', () => {
  const cases: [string, SseMessage, string][] = [
    ['data only', { data: 'hi' }, 'data:hi\n\n'],
    ['empty data', { data: '' }, 'data:\n\n'],
    [
      'id, event and JSON data in PocketBase order',
      { id: 'c1', event: 'SVC_CONNECT', data: '{"clientId":"c1"}' },
      'id:c1\nevent:SVC_CONNECT\ndata:{"clientId":"c1"}\n\n',
    ],
    ['retry', { retry: 3000, data: 'x' }, 'retry:3000\ndata:x\n\n'],
    ['LF splits data lines', { data: 'a\nb' }, 'data:a\ndata:b\n\n'],
    ['CRLF splits data lines', { data: 'a\r\nb' }, 'data:a\ndata:b\n\n'],
    ['lone CR splits data lines', { data: 'a\rb\n' }, 'data:a\ndata:b\ndata:\n\n'],
    [
      'event name with ?options= and spaces kept verbatim',
      { event: 'posts/*?options=%7B%22a%22%3A1%7D', data: '1' },
      'event:posts/*?options=%7B%22a%22%3A1%7D\ndata:1\n\n',
    ],
    ['colons in data are fine', { data: 'data: x' }, 'data:data: x\n\n'],
  ]
  it.each(cases)('%s', (_name, message, expected) => {
    expect(formatSseMessage(message)).toBe(expected)
  })

  const bad: [string, SseMessage][] = [
    ['LF in event', { event: 'a\nevent:b', data: '' }],
    ['CR in event', { event: 'a\rb', data: '' }],
    ['LF in id', { id: 'a\nb', data: '' }],
    ['CR in id', { id: 'a\r', data: '' }],
    ['NUL in id', { id: 'a\0b', data: '' }],
    ['negative retry', { retry: -1, data: '' }],
    ['fractional retry', { retry: 1.5, data: '' }],
  ]
  it.each(bad)('rejects %s', (_name, message) => {
    expect(() => formatSseMessage(message)).toThrow(SseFormatError)
  })
})

describe('formatSseComment', () => {
  it('is a bare colon line and a blank line by default', () => {
    expect(formatSseComment()).toBe(':\n\n')
  })
  it('keeps a text and splits it over lines', () => {
    expect(formatSseComment('ping')).toBe(':ping\n\n')
    expect(formatSseComment('a\r\nb')).toBe(':a\n:b\n\n')
  })
})
