/**
 * MCP with the official TypeScript SDK's client (`@modelcontextprotocol/sdk`, Streamable HTTP
 * transport) against a real server: it connects unchanged, lists the tools and calls them as a
 * user, with an API key and as a guest, each under the collection's own rules (SPEC §4.12).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

interface Session {
  client: Client
  errors: Error[]
  close(): Promise<void>
}

/** Connects the SDK's client, with an Authorization header when given. */
async function connect(
  t: TestServer,
  authorization?: string,
  wire: string[] = [],
): Promise<Session> {
  const headers: Record<string, string> = authorization ? { Authorization: authorization } : {}
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/api/mcp`), {
    requestInit: { headers },
    // The client's own fetch, recording each exchange (method, status) as it happens.
    fetch: async (input, init) => {
      const res = await fetch(input, init)
      wire.push(`${init?.method ?? 'GET'} ${res.status}`)
      return res
    },
  })
  const client = new Client({ name: 'svcbase-test', version: '1.0.0' })
  const errors: Error[] = []
  client.onerror = (err) => errors.push(err)
  await client.connect(transport)
  return { client, errors, close: () => client.close() }
}

type CallResult = {
  content: { type: string; text: string }[]
  structuredContent?: Record<string, any>
  isError?: boolean
}

const call = async (s: Session, name: string, args: Record<string, unknown> = {}) =>
  (await s.client.callTool({ name, arguments: args })) as CallResult

describe('MCP through the official SDK client (Streamable HTTP)', () => {
  let t: TestServer
  let alice: { id: string; token: string }
  let bob: { id: string; token: string }
  let apiKey: string

  const signUp = async (name: string) => {
    const email = `${name}@example.com`
    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email, password: 'password123', passwordConfirm: 'password123', name },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: email, password: 'password123' },
    })
    return { id: created.body.id as string, token: login.body.token as string }
  }

  beforeAll(async () => {
    t = await startServer()
    const users = await t.api('GET', '/api/collections/users', { token: t.suToken })
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'notes',
        type: 'base',
        fields: [
          { name: 'title', type: 'text', required: true, max: 50 },
          { name: 'public', type: 'bool' },
          { name: 'owner', type: 'relation', collectionId: users.body.id, maxSelect: 1 },
        ],
        listRule: 'public = true || owner = @request.auth.id',
        viewRule: 'public = true || owner = @request.auth.id',
        createRule: "@request.auth.id != '' && owner = @request.auth.id",
        updateRule: 'owner = @request.auth.id',
        deleteRule: 'owner = @request.auth.id',
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const view = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'public_notes',
        type: 'view',
        viewQuery: 'SELECT id, title FROM notes WHERE public = TRUE',
        listRule: '',
        viewRule: '',
      },
    })
    expect(view.status, JSON.stringify(view.body)).toBe(200)
    alice = await signUp('alice')
    bob = await signUp('bob')
    const key = await t.api('POST', '/api/api-keys', { token: bob.token, body: { name: 'agent' } })
    expect(key.status, JSON.stringify(key.body)).toBe(200)
    apiKey = key.body.key as string
  })
  afterAll(() => t.close())

  it('connects, negotiates the SDK latest version and pings, with no transport error', async () => {
    const wire: string[] = []
    const s = await connect(t, `Bearer ${alice.token}`, wire)
    try {
      expect(s.client.getServerVersion()).toMatchObject({ name: 'svcbase' })
      expect(s.client.getServerCapabilities()).toMatchObject({ tools: {} })
      expect(await s.client.ping()).toEqual({})
      // The GET for a server stream got 405, which the SDK accepts silently: no onerror.
      await new Promise((r) => setTimeout(r, 50))
      expect(s.errors).toEqual([])
      // initialize, notifications/initialized (202), then the GET for a stream (405) and the
      // ping, in either order (the client does not wait for the GET).
      expect(wire.slice(0, 2)).toEqual(['POST 200', 'POST 202'])
      expect(wire.slice(2).sort()).toEqual(['GET 405', 'POST 200'])
    } finally {
      await s.close()
    }
  })

  it('lists five tools per collection and two per view, with schemas', async () => {
    const s = await connect(t, `Bearer ${alice.token}`)
    try {
      const { tools } = await s.client.listTools()
      const names = tools.map((tool) => tool.name)
      for (const verb of ['list', 'get', 'create', 'update', 'delete']) {
        expect(names).toContain(`${verb}_notes`)
      }
      expect(names).toContain('list_public_notes')
      expect(names).toContain('get_public_notes')
      expect(names).not.toContain('create_public_notes')
      expect(names.some((n) => n.includes('_superusers') || n.endsWith('__mfas'))).toBe(false)
      const create = tools.find((tool) => tool.name === 'create_notes')!
      expect(create.inputSchema).toMatchObject({
        type: 'object',
        properties: { title: { type: 'string', maxLength: 50 }, public: { type: 'boolean' } },
        required: ['title'],
      })
      const list = tools.find((tool) => tool.name === 'list_notes')!
      expect(Object.keys(list.inputSchema.properties ?? {})).toEqual([
        'filter',
        'sort',
        'page',
        'perPage',
        'expand',
      ])
    } finally {
      await s.close()
    }
  })

  it('creates, reads, updates and deletes as a user, under the rules', async () => {
    const s = await connect(t, `Bearer ${alice.token}`)
    try {
      const created = await call(s, 'create_notes', {
        title: 'mine',
        public: false,
        owner: alice.id,
      })
      expect(created.isError).toBe(false)
      const id = created.structuredContent!.id as string
      expect(created.structuredContent).toMatchObject({ title: 'mine', owner: alice.id })
      expect(JSON.parse(created.content[0]!.text)).toEqual(created.structuredContent)

      const got = await call(s, 'get_notes', { id })
      expect(got).toMatchObject({ isError: false, structuredContent: { id, title: 'mine' } })

      const updated = await call(s, 'update_notes', { id, title: 'renamed' })
      expect(updated).toMatchObject({ isError: false, structuredContent: { title: 'renamed' } })
      const stored = await t.api('GET', `/api/collections/notes/records/${id}`, {
        token: t.suToken,
      })
      expect(stored.body.title).toBe('renamed')

      const listed = await call(s, 'list_notes', { filter: "title = 'renamed'", perPage: 5 })
      expect(listed.isError).toBe(false)
      expect(listed.structuredContent).toMatchObject({ page: 1, perPage: 5, totalItems: 1 })

      const deleted = await call(s, 'delete_notes', { id })
      expect(deleted).toMatchObject({ isError: false, structuredContent: { id, deleted: true } })
      const gone = await t.api('GET', `/api/collections/notes/records/${id}`, { token: t.suToken })
      expect(gone.status).toBe(404)
    } finally {
      await s.close()
    }
  })

  it('answers rule denials and validation failures as results with isError: true', async () => {
    const s = await connect(t, `Bearer ${alice.token}`)
    try {
      // createRule: the owner must be the caller.
      const denied = await call(s, 'create_notes', { title: 'not mine', owner: bob.id })
      expect(denied.isError).toBe(true)
      expect(JSON.parse(denied.content[0]!.text)).toEqual({
        code: 400,
        status: 400,
        message: 'Failed to create record.',
        data: {},
      })
      const invalid = await call(s, 'create_notes', { title: 'x'.repeat(51), owner: alice.id })
      expect(invalid.isError).toBe(true)
      expect(invalid.structuredContent).toMatchObject({
        code: 400,
        status: 400,
        data: { title: { code: 'validation_max_text_constraint' } },
      })
      const missing = await call(s, 'get_notes', { id: 'nosuchrecord123' })
      expect(missing).toMatchObject({ isError: true, structuredContent: { code: 404 } })
      // Nothing was written by the refused calls.
      const all = await t.api('GET', '/api/collections/notes/records', { token: t.suToken })
      expect(all.body.totalItems).toBe(0)
    } finally {
      await s.close()
    }
  })

  it("applies bob's rules through his API key, and never shows alice's private note", async () => {
    const a = await connect(t, `Bearer ${alice.token}`)
    const priv = await call(a, 'create_notes', { title: 'alice private', owner: alice.id })
    const pub = await call(a, 'create_notes', {
      title: 'alice public',
      public: true,
      owner: alice.id,
    })
    await a.close()
    expect(priv.isError || pub.isError).toBe(false)

    const s = await connect(t, `Bearer ${apiKey}`)
    try {
      const mine = await call(s, 'create_notes', { title: 'bob via key', owner: bob.id })
      expect(mine).toMatchObject({ isError: false, structuredContent: { owner: bob.id } })
      const listed = await call(s, 'list_notes', { sort: 'title' })
      const titles = (listed.structuredContent!.items as { title: string }[]).map((r) => r.title)
      expect(titles).toEqual(['alice public', 'bob via key'])
      const hidden = await call(s, 'get_notes', { id: priv.structuredContent!.id })
      expect(hidden).toMatchObject({ isError: true, structuredContent: { code: 404 } })
      const foreign = await call(s, 'update_notes', {
        id: pub.structuredContent!.id,
        title: 'hijacked',
      })
      expect(foreign).toMatchObject({ isError: true, structuredContent: { code: 404 } })
      const view = await call(s, 'list_public_notes')
      expect(view.structuredContent!.items).toEqual([
        expect.objectContaining({ title: 'alice public' }),
      ])
      const one = await call(s, 'get_public_notes', { id: pub.structuredContent!.id })
      expect(one).toMatchObject({ isError: false, structuredContent: { title: 'alice public' } })
    } finally {
      await s.close()
    }
  })

  it('lets a guest list public records and refuses its writes', async () => {
    const s = await connect(t)
    try {
      const { tools } = await s.client.listTools()
      expect(tools.map((tool) => tool.name)).toContain('create_notes')
      const listed = await call(s, 'list_notes')
      const titles = (listed.structuredContent!.items as { title: string }[]).map((r) => r.title)
      expect(titles).toEqual(['alice public'])
      const create = await call(s, 'create_notes', { title: 'guest' })
      expect(create).toMatchObject({ isError: true, structuredContent: { code: 400 } })
      // users: a guest sees no one (listRule `id = @request.auth.id`): an empty page.
      const users = await call(s, 'list_users')
      expect(users).toMatchObject({ isError: false, structuredContent: { totalItems: 0 } })
    } finally {
      await s.close()
    }
  })

  it('reports an unknown tool as a protocol error (-32602)', async () => {
    const s = await connect(t, `Bearer ${alice.token}`)
    try {
      await expect(
        s.client.callTool({ name: 'create_public_notes', arguments: {} }),
      ).rejects.toThrow(/-32602.*unknown tool create_public_notes/)
    } finally {
      await s.close()
    }
  })
})
