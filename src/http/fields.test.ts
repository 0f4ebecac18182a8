import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { notFound } from '../core/errors.js'
import { silentLogger } from '../core/logger.js'
import { errorHandler } from './errors.js'
import { registerFieldsPicker } from './fields.js'

const record = {
  id: 'r1',
  title: 'Hello',
  body: '<p>Hello <b>big</b> world</p>',
  expand: { author: { id: 'u1', name: 'Ann' } },
}
const list = {
  items: [record, { id: 'r2', title: 'Two', body: '' }],
  page: 1,
  perPage: 30,
  totalItems: 2,
  totalPages: 1,
}
const auth = { token: 'tok', record: { id: 'u1', email: 'a@b.c' }, meta: { isNew: false } }
const missing = {
  code: 404,
  status: 404,
  message: "The requested resource wasn't found.",
  data: { id: 'x' },
}

interface Scenario {
  name: string
  url: string
  expectedStatus: number
  expectedContent: unknown
}

const scenarios: Scenario[] = [
  {
    name: 'record without fields is untouched',
    url: '/record',
    expectedStatus: 200,
    expectedContent: record,
  },
  {
    name: 'record with blank fields is untouched',
    url: '/record?fields=%20',
    expectedStatus: 200,
    expectedContent: record,
  },
  {
    name: 'record is picked',
    url: '/record?fields=id,%20expand.author.name',
    expectedStatus: 200,
    expectedContent: { id: 'r1', expand: { author: { name: 'Ann' } } },
  },
  {
    name: 'record with star and excerpt',
    url: `/record?fields=${encodeURIComponent('*,body:excerpt(5,true),expand.author.id')}`,
    expectedStatus: 200,
    expectedContent: { ...record, body: 'Hello...', expand: { author: { id: 'u1' } } },
  },
  {
    name: 'the first of repeated fields params is used',
    url: '/record?fields=title&fields=id',
    expectedStatus: 200,
    expectedContent: { title: 'Hello' },
  },
  {
    name: 'list items are picked, the wrapper stays',
    url: '/list?fields=id',
    expectedStatus: 200,
    expectedContent: { ...list, items: [{ id: 'r1' }, { id: 'r2' }] },
  },
  {
    name: 'auth responses are picked as a whole',
    url: '/auth?fields=record.id',
    expectedStatus: 200,
    expectedContent: { record: { id: 'u1' } },
  },
  {
    name: 'other 2xx statuses are picked',
    url: '/created?fields=id',
    expectedStatus: 201,
    expectedContent: { id: 'r1' },
  },
  {
    name: 'a sent error body is never picked',
    url: '/missing?fields=id',
    expectedStatus: 404,
    expectedContent: missing,
  },
  {
    name: 'a thrown ApiError is never picked',
    url: '/thrown?fields=id',
    expectedStatus: 404,
    expectedContent: { code: 404, status: 404, message: 'No such thing.', data: {} },
  },
  {
    name: 'an unknown modifier is a 400',
    url: '/record?fields=id:upper',
    expectedStatus: 400,
    expectedContent: {
      code: 400,
      status: 400,
      message:
        'Unknown modifier "upper" in "id:upper": the only modifier is excerpt(maxChars, withEllipsis?).',
      data: {},
    },
  },
  {
    name: 'bad excerpt arguments are a 400',
    url: '/list?fields=body:excerpt(0)',
    expectedStatus: 400,
    expectedContent: {
      code: 400,
      status: 400,
      message:
        'Argument maxChars must be a positive integer, got "0" in "body:excerpt(0)": expected excerpt(maxChars, withEllipsis?).',
      data: {},
    },
  },
  {
    name: 'unbalanced parentheses are a 400',
    url: `/record?fields=${encodeURIComponent('id,body:excerpt(3')}`,
    expectedStatus: 400,
    expectedContent: {
      code: 400,
      status: 400,
      message: 'Unbalanced parenthesis in "body:excerpt(3".',
      data: {},
    },
  },
  {
    name: 'an invalid expression on an error response stays that error',
    url: '/missing?fields=id:upper',
    expectedStatus: 404,
    expectedContent: missing,
  },
  {
    name: 'a route registered before the hook is picked too',
    url: '/early?fields=b',
    expectedStatus: 200,
    expectedContent: { b: 2 },
  },
]

describe('registerFieldsPicker', () => {
  let http: FastifyInstance

  beforeAll(async () => {
    http = Fastify()
    http.setErrorHandler(errorHandler(silentLogger))
    http.get('/early', async () => ({ a: 1, b: 2 }))
    registerFieldsPicker(http)
    http.get('/record', async () => record)
    http.get('/list', async () => list)
    http.get('/auth', async () => auth)
    http.get('/created', async (_req, reply) => reply.code(201).send(record))
    http.get('/missing', async (_req, reply) => reply.code(404).send(missing))
    http.get('/thrown', async () => {
      throw notFound('no such thing')
    })
    http.get('/text', async (_req, reply) => reply.type('text/plain').send('id,title'))
    await http.ready()
  })

  afterAll(async () => {
    await http.close()
  })

  it.each(scenarios)('$name', async ({ url, expectedStatus, expectedContent }) => {
    const res = await http.inject({ method: 'GET', url })
    expect(res.statusCode).toBe(expectedStatus)
    expect(res.json()).toStrictEqual(expectedContent)
  })

  it('leaves string payloads alone', async () => {
    const res = await http.inject({ method: 'GET', url: '/text?fields=id' })
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('id,title')
  })

  it('does not alter the handler data across requests', async () => {
    await http.inject({ method: 'GET', url: '/record?fields=id' })
    const res = await http.inject({ method: 'GET', url: '/record' })
    expect(res.json()).toStrictEqual(record)
  })
})
