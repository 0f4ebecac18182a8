/**
 * The MCP inspector's command line (`@modelcontextprotocol/inspector-cli`, as a child process)
 * against a real server: it detects the Streamable HTTP transport from the `/mcp` path, lists
 * the tools and calls one, with and without an Authorization header.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

// NB: the CLI finds its own package.json through `../package.json` checked against the working
// directory, so it runs from its build folder (from elsewhere it fails before connecting).
const CLI_DIR = join(process.cwd(), 'node_modules/@modelcontextprotocol/inspector-cli/build')

/** Runs the inspector CLI; resolves with its exit code and output, never rejects. */
function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['index.js', ...args],
      { cwd: CLI_DIR, timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

describe('MCP through the inspector CLI', () => {
  let t: TestServer
  let url: string
  let token: string

  beforeAll(async () => {
    t = await startServer()
    url = `${t.url}/api/mcp`
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'tasks',
        type: 'base',
        fields: [{ name: 'title', type: 'text', required: true }],
        listRule: '',
        viewRule: '',
        createRule: "@request.auth.id != ''",
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    await t.api('POST', '/api/collections/users/records', {
      body: { email: 'dan@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'dan@example.com', password: 'password123' },
    })
    token = login.body.token as string
  })
  afterAll(() => t.close())

  it('lists the tools (tools/list), as JSON on stdout, exit 0', async () => {
    const res = await inspector([url, '--method', 'tools/list'])
    expect(res.code, res.stderr).toBe(0)
    const names = (JSON.parse(res.stdout).tools as { name: string }[]).map((x) => x.name)
    expect(names).toEqual(expect.arrayContaining(['list_tasks', 'get_tasks', 'create_tasks']))
  })

  it('calls a tool as a user with --header, and the record is stored', async () => {
    const res = await inspector([
      url,
      '--method',
      'tools/call',
      '--tool-name',
      'create_tasks',
      '--tool-arg',
      'title=from the inspector',
      '--header',
      `Authorization: Bearer ${token}`,
    ])
    expect(res.code, res.stderr).toBe(0)
    const out = JSON.parse(res.stdout)
    expect(out.isError).toBe(false)
    expect(out.structuredContent.title).toBe('from the inspector')
    const stored = await t.api('GET', `/api/collections/tasks/records/${out.structuredContent.id}`)
    expect(stored.status).toBe(200)
  })

  it('shows a rule denial as a result with isError: true (a guest creating)', async () => {
    const res = await inspector([
      url,
      '--method',
      'tools/call',
      '--tool-name',
      'create_tasks',
      '--tool-arg',
      'title=guest',
    ])
    expect(res.code, res.stderr).toBe(0)
    const out = JSON.parse(res.stdout)
    expect(out.isError).toBe(true)
    expect(JSON.parse(out.content[0].text)).toEqual({
      code: 400,
      status: 400,
      message: 'Failed to create record.',
      data: {},
    })
  })

  it('fails (exit 1) on an unknown tool, with the JSON-RPC error on stderr', async () => {
    const res = await inspector([url, '--method', 'tools/call', '--tool-name', 'drop_tasks'])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('MCP error -32602: Invalid params: unknown tool drop_tasks')
  })
})
