/**
 * `GET /api/collections/{name}/tool-schema` (SPEC §4.13): superuser only, every field type
 * mapped to JSON Schema with its constraints, and the very conversion the `create_<collection>`
 * MCP tool uses as its `inputSchema`, following schema changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

describe('tool schema', () => {
  let t: TestServer
  let userToken: string
  let usersId: string

  /** The `create_<name>` tool as `tools/list` shows it to the superuser. */
  const createTool = async (name: string) => {
    const res = await t.api('POST', '/api/mcp', {
      token: t.suToken,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    })
    expect(res.status).toBe(200)
    return (
      res.body.result.tools as { name: string; description: string; inputSchema: unknown }[]
    ).find((tool) => tool.name === `create_${name}`)
  }
  const schema = async (name: string) => {
    const res = await t.api('GET', `/api/collections/${name}/tool-schema`, { token: t.suToken })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }

  beforeAll(async () => {
    t = await startServer()
    const users = await t.api('GET', '/api/collections/users', { token: t.suToken })
    usersId = users.body.id
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'things',
        type: 'base',
        fields: [
          { name: 'title', type: 'text', required: true, min: 3, max: 80, pattern: '^[A-Z]' },
          { name: 'slug', type: 'text', autogeneratePattern: '[a-z]{8}', required: true },
          { name: 'body', type: 'editor' },
          { name: 'count', type: 'number', onlyInt: true, min: 0, max: 10 },
          { name: 'ratio', type: 'number' },
          { name: 'done', type: 'bool' },
          { name: 'contact', type: 'email', onlyDomains: ['example.com'] },
          { name: 'site', type: 'url' },
          { name: 'due', type: 'date', min: '2024-01-01 00:00:00.000Z' },
          {
            name: 'status',
            type: 'select',
            values: ['draft', 'live'],
            maxSelect: 1,
            required: true,
          },
          { name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 2 },
          { name: 'author', type: 'relation', collectionId: usersId, maxSelect: 1 },
          { name: 'readers', type: 'relation', collectionId: usersId, maxSelect: 5, minSelect: 1 },
          { name: 'doc', type: 'file', maxSelect: 1 },
          { name: 'meta', type: 'json' },
          { name: 'place', type: 'geoPoint' },
          { name: 'embedding', type: 'vector', dimensions: 3 },
          { name: 'secret', type: 'text', hidden: true },
          { name: 'stamp', type: 'autodate', onCreate: true },
        ],
        createRule: '',
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const email = 'carol@example.com'
    await t.api('POST', '/api/collections/users/records', {
      body: { email, password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: email, password: 'password123' },
    })
    userToken = login.body.token
  })
  afterAll(() => t.close())

  it('is superuser only: 401 without a token, 403 for a user, 404 for no collection', async () => {
    const none = await t.api('GET', '/api/collections/things/tool-schema')
    expect(none.status).toBe(401)
    expect(none.body).toMatchObject({ code: 401 })
    const user = await t.api('GET', '/api/collections/things/tool-schema', { token: userToken })
    expect(user.status).toBe(403)
    expect(user.body).toMatchObject({ code: 403 })
    const missing = await t.api('GET', '/api/collections/nothing/tool-schema', {
      token: t.suToken,
    })
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ code: 404 })
  })

  it('maps every field type to JSON Schema with its constraints', async () => {
    const s = await schema('things')
    expect(s.name).toBe('create_things')
    expect(s.description).toContain('things')
    expect(s.description).toContain('File fields cannot be uploaded')
    expect(s.parameters.type).toBe('object')
    const p = s.parameters.properties
    expect(p.id).toMatchObject({ type: 'string', pattern: '^[a-z0-9]+$', maxLength: 15 })
    expect(p.title).toEqual({ type: 'string', minLength: 3, maxLength: 80, pattern: '^[A-Z]' })
    expect(p.slug).toEqual({ type: 'string', maxLength: 5000 })
    expect(p.body).toMatchObject({ type: 'string' })
    expect(p.count).toEqual({ type: 'integer', minimum: 0, maximum: 10 })
    expect(p.ratio).toEqual({ type: 'number' })
    expect(p.done).toEqual({ type: 'boolean' })
    expect(p.contact).toMatchObject({ type: 'string', format: 'email' })
    expect(p.contact.description).toContain('example.com')
    expect(p.site).toEqual({ type: 'string', format: 'uri' })
    expect(p.due).toMatchObject({ type: 'string', format: 'date-time' })
    expect(p.due.description).toContain('not before 2024-01-01 00:00:00.000Z')
    expect(p.status).toEqual({ type: 'string', enum: ['draft', 'live'] })
    expect(p.tags).toEqual({
      type: 'array',
      items: { type: 'string', enum: ['a', 'b', 'c'] },
      uniqueItems: true,
      maxItems: 2,
    })
    expect(p.author).toMatchObject({ type: 'string' })
    expect(p.author.description).toBe('Record id of collection users.')
    expect(p.readers).toMatchObject({
      type: 'array',
      items: { type: 'string' },
      uniqueItems: true,
      minItems: 1,
      maxItems: 5,
      description: 'Record ids of collection users.',
    })
    expect(p.meta.type).toEqual(
      expect.arrayContaining(['object', 'array', 'string', 'number', 'boolean', 'null']),
    )
    expect(p.place).toEqual({
      type: 'object',
      properties: {
        lon: { type: 'number', minimum: -180, maximum: 180 },
        lat: { type: 'number', minimum: -90, maximum: 90 },
      },
      required: ['lon', 'lat'],
    })
    expect(p.embedding).toEqual({
      type: 'array',
      items: { type: 'number' },
      minItems: 3,
      maxItems: 3,
    })
    // Not writable through a tool: files, hidden fields, autodates and created/updated.
    for (const absent of ['doc', 'secret', 'stamp', 'created', 'updated']) {
      expect(p, absent).not.toHaveProperty(absent)
    }
    // Required, minus what the server fills (the id, the autogenerated slug).
    expect(s.parameters.required).toEqual(['title', 'status'])
  })

  it('maps an auth collection: email, password and its confirmation, no token key', async () => {
    const s = await schema('users')
    const p = s.parameters.properties
    expect(p.email).toMatchObject({ type: 'string', format: 'email' })
    expect(p.password).toMatchObject({ type: 'string', minLength: 8, maxLength: 71 })
    expect(p.passwordConfirm).toMatchObject({ type: 'string' })
    expect(p.emailVisibility).toEqual({ type: 'boolean' })
    expect(p.verified).toEqual({ type: 'boolean' })
    expect(p).not.toHaveProperty('tokenKey')
    expect(p).not.toHaveProperty('avatar')
    expect(s.parameters.required).toEqual(
      expect.arrayContaining(['email', 'password', 'passwordConfirm']),
    )
    expect(s.parameters.required).not.toContain('tokenKey')
  })

  it("is exactly the create tool's inputSchema, before and after a schema change", async () => {
    const before = await schema('things')
    const tool = await createTool('things')
    expect(tool).toEqual({
      name: before.name,
      description: before.description,
      inputSchema: before.parameters,
    })

    const current = await t.api('GET', '/api/collections/things', { token: t.suToken })
    const fields = (current.body.fields as { name: string }[])
      .filter((f) => f.name !== 'ratio' && f.name !== 'doc')
      .concat([
        { name: 'priority', type: 'select', values: ['low', 'high'], required: true } as never,
      ])
    const patched = await t.api('PATCH', '/api/collections/things', {
      token: t.suToken,
      body: { fields },
    })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)

    const after = await schema('things')
    expect(after.parameters.properties).not.toHaveProperty('ratio')
    expect(after.parameters.properties.priority).toEqual({ type: 'string', enum: ['low', 'high'] })
    expect(after.parameters.required).toEqual(['title', 'status', 'priority'])
    expect(after.description).not.toContain('File fields')
    expect(after).not.toEqual(before)
    const toolAfter = await createTool('things')
    expect(toolAfter).toEqual({
      name: after.name,
      description: after.description,
      inputSchema: after.parameters,
    })
  })

  it('describes values the create tool accepts: a call built from it succeeds', async () => {
    const res = await t.api('POST', '/api/mcp', {
      token: t.suToken,
      body: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'create_things',
          arguments: {
            title: 'Hello',
            status: 'live',
            priority: 'low',
            count: 3,
            tags: ['a', 'c'],
            place: { lon: 13.4, lat: 52.5 },
            embedding: [0.5, 0.25, -1],
            meta: { any: ['json'] },
            due: '2025-05-01 10:00:00.000Z',
          },
        },
      },
    })
    expect(res.status).toBe(200)
    expect(res.body.result.isError, JSON.stringify(res.body)).toBe(false)
    expect(res.body.result.structuredContent).toMatchObject({
      title: 'Hello',
      count: 3,
      tags: ['a', 'c'],
      place: { lon: 13.4, lat: 52.5 },
      embedding: [0.5, 0.25, -1],
    })
    expect(res.body.result.structuredContent.slug).toMatch(/^[a-z]{8}$/)
  })
})
