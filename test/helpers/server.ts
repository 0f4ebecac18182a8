import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AppConfig } from '../../src/core/app.js'
import { manageSuperuser } from '../../src/core/auth/superusers.js'
import { silentLogger } from '../../src/core/logger.js'
import { createServer, type Server, type ServerOptions } from '../../src/server.js'

/** A running server on a random loopback port with a signed-in superuser. */
export interface TestServer {
  server: Server
  url: string
  dir: string
  suToken: string
  /** Sends a JSON request; returns status and parsed body. */
  api(
    method: string,
    path: string,
    opts?: {
      body?: unknown
      token?: string | null
      headers?: Record<string, string>
      raw?: string | Buffer | FormData
    },
  ): Promise<{ status: number; body: any; headers: Headers }>
  /** Sends a request from a chosen client address (the TCP peer), through Fastify's inject. */
  from(
    ip: string,
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS',
    url: string,
    opts?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>
  /** Every file key under `prefix` in the app's current storage, sorted. */
  storedKeys(prefix: string): Promise<string[]>
  close(): Promise<void>
}

export const SU_EMAIL = 'admin@example.com'
export const SU_PASSWORD = 'supersecret123'

/**
 * Starts a fresh server with its own data directory (`options`: the server's, e.g. its features).
 * It listens through `server.listen`, so an in-process restart listens on the same port again.
 */
export async function startServer(
  options: ServerOptions & Pick<AppConfig, 'publicDir' | 'indexFallback' | 'dashboardDir'> = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-test-'))
  const { publicDir, indexFallback } = options
  const server = await createServer(
    {
      dataDir: dir,
      logger: silentLogger,
      publicDir,
      indexFallback,
      // The dashboard build of the browser tests (test/global-setup.ts), else the package's.
      dashboardDir: options.dashboardDir ?? process.env.SVC_TEST_UI_DIR,
    },
    options,
  )
  const address = await server.listen({ host: '127.0.0.1', port: 0 })
  await manageSuperuser(server.app, 'create', SU_EMAIL, SU_PASSWORD)
  const api: TestServer['api'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers }
    const token = opts.token === undefined ? undefined : opts.token
    if (token) headers.authorization = `Bearer ${token}`
    let body: string | Buffer | FormData | undefined
    if (opts.raw !== undefined) body = opts.raw
    else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(opts.body)
    }
    const res = await fetch(`${address}${path}`, { method, headers, body })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text === '' ? null : JSON.parse(text)
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers }
  }
  const login = await api('POST', '/api/collections/_superusers/auth-with-password', {
    body: { identity: SU_EMAIL, password: SU_PASSWORD },
  })
  if (login.status !== 200) throw new Error(`superuser login failed: ${JSON.stringify(login.body)}`)
  return {
    server,
    url: address,
    dir,
    suToken: login.body.token as string,
    api,
    async from(ip, method, url, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers }
      if (opts.token) headers.authorization = opts.token
      if (opts.body !== undefined) headers['content-type'] = 'application/json'
      const res = await server.http.inject({
        method,
        url,
        remoteAddress: ip,
        headers,
        payload: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      })
      const json = /^application\/json/.test(String(res.headers['content-type']))
      return { status: res.statusCode, body: json ? res.json() : res.body, headers: res.headers }
    },
    async storedKeys(prefix) {
      const out: string[] = []
      const walk = async (p: string) => {
        const l = await server.app.storage.list(p)
        out.push(...l.files.map((f) => f.key))
        for (const folder of l.folders) await walk(folder)
      }
      await walk(prefix)
      return out.sort()
    },
    async close() {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
