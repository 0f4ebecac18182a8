/**
 * The small HTTP server the `http` suite's `$http.send` calls reach (on loopback, a free port):
 * the recorder starts it beside PocketBase, the replay test beside svcbase, and `http.pb.js`
 * finds it through `$os.getenv('PB_HTTP_TARGET')` (`PB_HTTP_CLOSED`: a port nothing listens on).
 * Its answers are fixed, so both servers see the same ones; `/hits` counts the requests that
 * reached `/hit`, so a case can tell how many requests a handler really sent.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A running target. */
export interface HttpTarget {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** `http://127.0.0.1:<port>` of a port that refuses connections. */
  closed: string
  /** `https://127.0.0.1:<port>` with a self-signed certificate (no authority signed it). */
  selfSigned: string
  close(): Promise<void>
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** The request as the target received it (the headers a case sets, not the client's own). */
function echo(req: http.IncomingMessage, body: string): Record<string, unknown> {
  const url = new URL(req.url ?? '/', 'http://target')
  const pick = [
    'user-agent',
    'accept-encoding',
    'content-length',
    'content-type',
    'x-custom',
    'x-two',
    'authorization',
  ]
  return {
    method: req.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: Object.fromEntries(
      pick.filter((h) => h in req.headers).map((h) => [h, req.headers[h]]),
    ),
    body,
  }
}

/** Starts the target on 127.0.0.1 (a free port) and finds a closed port for the refusals. */
export async function startHttpTarget(): Promise<HttpTarget> {
  let hits = 0
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      const url = new URL(req.url ?? '/', 'http://target')
      switch (url.pathname) {
        case '/echo':
          res.setHeader('x-multi', ['a', 'b'])
          res.setHeader('set-cookie', [
            'sid=abc123; Path=/; Max-Age=60; HttpOnly',
            'theme=dark',
            'exp="q v"; Domain=example.com; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Secure; SameSite=Lax; Flavour=x',
          ])
          return json(res, 200, echo(req, body))
        case '/text':
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
          return res.end('hello ✓')
        case '/array':
          return json(res, 200, [1, 'a', { b: true }])
        case '/scalar':
          return json(res, 200, 42)
        case '/empty':
          res.writeHead(204)
          return res.end()
        case '/missing':
          return json(res, 404, { error: 'no such thing' })
        case '/boom':
          res.writeHead(500, { 'content-type': 'text/plain' })
          return res.end('boom')
        case '/slow':
          setTimeout(
            () => json(res, 200, { slow: true }),
            Number(url.searchParams.get('ms') ?? 3000),
          )
          return
        case '/redirect':
          res.writeHead(302, { location: '/echo?from=redirect' })
          return res.end()
        case '/name':
          return json(res, 200, { name: `from target ${url.searchParams.get('n') ?? ''}`.trim() })
        case '/hit':
          hits++
          return json(res, 200, { hit: hits })
        case '/hits':
          return json(res, 200, { hits })
        case '/big': {
          const size = Number(url.searchParams.get('bytes') ?? 0)
          res.writeHead(200, { 'content-type': 'application/octet-stream' })
          const chunk = Buffer.alloc(64 * 1024, 120)
          let left = size
          const write = () => {
            while (left > 0) {
              const n = Math.min(left, chunk.length)
              left -= n
              if (!res.write(chunk.subarray(0, n))) return void res.once('drain', write)
            }
            res.end()
          }
          return write()
        }
        default:
          return json(res, 404, { error: 'unknown path' })
      }
    })
  })
  server.keepAliveTimeout = 5_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  // A port that was free a moment ago: nothing listens on it.
  const probe = http.createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  const closedPort = (probe.address() as AddressInfo).port
  await new Promise((r) => probe.close(r))
  // A TLS server whose certificate is its own (openssl, as test/helpers/web-push-double.ts).
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-http-target-'))
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-days',
      '1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  )
  const tls = https.createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (_req, res) => json(res, 200, { tls: true }),
  )
  rmSync(dir, { recursive: true, force: true })
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r))
  const tlsPort = (tls.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    closed: `http://127.0.0.1:${closedPort}`,
    selfSigned: `https://127.0.0.1:${tlsPort}`,
    close: async () => {
      server.closeAllConnections()
      tls.closeAllConnections()
      await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => tls.close(r))])
    },
  }
}
