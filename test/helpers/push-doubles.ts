/**
 * Local doubles of Google's OAuth token service + FCM HTTP v1, and of the APNs provider API,
 * checking what the real services check (integrations.md §2.5 and §3.5): the RS256 JWT-bearer
 * assertion against the service account's public key, the bearer token it issued, the send path
 * and message shape; an HTTP/2-only TLS server verifying the ES256 provider token against the
 * `.p8` key's public key, the topic, push type and priority, the payload.
 */

import { execFileSync } from 'node:child_process'
import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import http2 from 'node:http2'
import type { AddressInfo, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeProtectedHeader, jwtVerify } from 'jose'

const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

/** An RSA key pair and the service-account JSON around its private key. */
export function serviceAccount(tokenUri: string, projectId = 'demo-project') {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const clientEmail = `push-sender@${projectId}.iam.gserviceaccount.com`
  const json = JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '1234567890',
    token_uri: tokenUri,
  })
  return { json, publicKey, clientEmail, projectId }
}

export interface FcmSend {
  projectId: string
  message: Record<string, any>
}

/** The FCM + token service double on plain HTTP; `url` is its origin. */
export interface FcmDouble {
  url: string
  tokenUrl: string
  /** Accepted token requests (each issued a new access token). */
  tokenRequests: number
  /** Refused token requests, with the error description answered. */
  refusedTokens: string[]
  /** Accepted sends (200 or the dead-token 404), in order. */
  sends: FcmSend[]
  /** Requests refused (401/400/404 other than a dead token), with why. */
  refused: string[]
  /** Registration tokens answered with the UNREGISTERED 404. */
  dead: Set<string>
  /** `expires_in` of the next access tokens (s). */
  expiresIn: number
  /** Forget every issued access token (as after a revocation): the next send gets a 401. */
  revokeAll(): void
  /** Registers a service account the token endpoint accepts assertions of. */
  trust(clientEmail: string, key: KeyObject, projectId: string): void
  close(): Promise<void>
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

const rpcError = (code: number, status: string, message: string, errorCode?: string) => ({
  error: {
    code,
    message,
    status,
    ...(errorCode
      ? {
          details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }],
        }
      : {}),
  },
})

export async function startFcmDouble(): Promise<FcmDouble> {
  const accounts = new Map<string, { key: KeyObject; projectId: string }>()
  const issued = new Map<string, { until: number; projectId: string }>()
  const double: FcmDouble = {
    url: '',
    tokenUrl: '',
    tokenRequests: 0,
    refusedTokens: [],
    sends: [],
    refused: [],
    dead: new Set(),
    expiresIn: 3599,
    revokeAll: () => issued.clear(),
    trust: (email, key, projectId) => accounts.set(email, { key, projectId }),
    close: () => new Promise((r) => server.close(() => r())),
  }

  async function token(req: http.IncomingMessage, res: http.ServerResponse) {
    const refuse = (why: string) => {
      double.refusedTokens.push(why)
      json(res, 400, { error: 'invalid_grant', error_description: why })
    }
    if (req.headers['content-type'] !== 'application/x-www-form-urlencoded')
      return refuse('content type')
    const form = new URLSearchParams(await readBody(req))
    if (form.get('grant_type') !== GRANT) return refuse('grant_type')
    const assertion = form.get('assertion') ?? ''
    try {
      const header = decodeProtectedHeader(assertion)
      if (header.alg !== 'RS256') return refuse('alg')
      const unverified = JSON.parse(
        Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString(),
      ) as { iss?: string }
      const account = accounts.get(unverified.iss ?? '')
      if (!account) return refuse('Invalid JWT: unknown issuer')
      const claims = (
        await jwtVerify(assertion, account.key, {
          algorithms: ['RS256'],
          audience: double.tokenUrl,
          clockTolerance: 5,
        })
      ).payload
      const scopes = (typeof claims.scope === 'string' ? claims.scope : '').split(' ')
      if (
        !scopes.includes('https://www.googleapis.com/auth/firebase.messaging') &&
        !scopes.includes('https://www.googleapis.com/auth/cloud-platform')
      )
        return refuse('scope')
      const iat = Number(claims.iat)
      const exp = Number(claims.exp)
      if (!(exp - iat <= 3600) || iat > Date.now() / 1000 + 5)
        return refuse('Invalid JWT: Token must be a short-lived token (60 minutes)')
      const access = `ya29.${randomBytes(24).toString('base64url')}`
      issued.set(access, {
        until: Date.now() + double.expiresIn * 1000,
        projectId: account.projectId,
      })
      double.tokenRequests++
      json(res, 200, { access_token: access, expires_in: double.expiresIn, token_type: 'Bearer' })
    } catch (err) {
      refuse(`Invalid JWT Signature. (${(err as Error).message})`)
    }
  }

  async function send(req: http.IncomingMessage, res: http.ServerResponse, projectId: string) {
    const refuse = (status: number, rpc: ReturnType<typeof rpcError>) => {
      double.refused.push(`${status} ${rpc.error.message}`)
      json(res, status, rpc)
    }
    const auth = req.headers.authorization ?? ''
    const access = auth.startsWith('Bearer ') ? issued.get(auth.slice(7)) : undefined
    if (!access || access.until <= Date.now())
      return refuse(
        401,
        rpcError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'),
      )
    if (access.projectId !== projectId)
      return refuse(
        403,
        rpcError(403, 'PERMISSION_DENIED', 'Permission denied', 'SENDER_ID_MISMATCH'),
      )
    if (!String(req.headers['content-type']).startsWith('application/json'))
      return refuse(400, rpcError(400, 'INVALID_ARGUMENT', 'content type'))
    const text = await readBody(req)
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      return refuse(400, rpcError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'))
    }
    const message = body?.message
    if (!message || typeof message !== 'object')
      return refuse(400, rpcError(400, 'INVALID_ARGUMENT', 'message required'))
    const targets = ['token', 'topic', 'condition'].filter((k) => message[k] !== undefined)
    if (targets.length !== 1)
      return refuse(400, rpcError(400, 'INVALID_ARGUMENT', 'exactly one target'))
    for (const [k, v] of Object.entries(message.data ?? {}))
      if (typeof v !== 'string')
        return refuse(
          400,
          rpcError(
            400,
            'INVALID_ARGUMENT',
            `Invalid value at 'message.data[${k}].value' (TYPE_STRING)`,
          ),
        )
    if (Buffer.byteLength(text) > 4096)
      return refuse(400, rpcError(400, 'INVALID_ARGUMENT', 'Message is too big'))
    double.sends.push({ projectId, message })
    if (double.dead.has(message.token))
      return json(
        res,
        404,
        rpcError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'),
      )
    json(res, 200, { name: `projects/${projectId}/messages/${randomUUID()}` })
  }

  const server = http.createServer((req, res) => {
    const path = req.url ?? ''
    const m = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path)
    if (req.method === 'POST' && path === '/token') void token(req, res)
    else if (req.method === 'POST' && m) void send(req, res, decodeURIComponent(m[1]!))
    else json(res, 404, rpcError(404, 'NOT_FOUND', `no route ${req.method} ${path}`))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  double.tokenUrl = `${double.url}/token`
  return double
}

/** A P-256 key pair, the private key as a `.p8` (PKCS#8 PEM). */
export function apnsKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  return { p8: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey }
}

/** A throwaway self-signed certificate for 127.0.0.1 and localhost (openssl CLI). */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'apns-cert-'))
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-days',
        '2',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    )
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface ApnsRequest {
  token: string
  headers: http2.IncomingHttpHeaders
  payload: any
  jwt: string
}

export interface ApnsDouble {
  url: string
  /** The certificate to trust (its own CA). */
  cert: string
  /** Delivered notifications (200). */
  delivered: ApnsRequest[]
  /** Every answer other than 200: `<status> <reason>`. */
  refused: string[]
  /** Device tokens answered 410 Unregistered / 400 BadDeviceToken. */
  dead: Set<string>
  bad: Set<string>
  /** Distinct provider tokens seen. */
  jwts: Set<string>
  /** TLS connections accepted. */
  connections: number
  /** Answer the next N requests carrying a valid token with 403 ExpiredProviderToken. */
  expireNext: number
  close(): Promise<void>
}

export async function startApnsDouble(opts: {
  publicKey: KeyObject
  keyId: string
  teamId: string
  bundleId: string
}): Promise<ApnsDouble> {
  const { key, cert } = selfSignedCert()
  const sessions = new Set<http2.ServerHttp2Session>()
  const sockets = new Set<Socket>()
  const double: ApnsDouble = {
    url: '',
    cert,
    delivered: [],
    refused: [],
    dead: new Set(),
    bad: new Set(),
    jwts: new Set(),
    connections: 0,
    expireNext: 0,
    close: () =>
      new Promise((r) => {
        for (const s of sessions) s.destroy()
        for (const socket of sockets) socket.destroy()
        server.close(() => r())
      }),
  }
  /** Per connection: new provider tokens seen within 20 minutes (APNs allows one refresh). */
  const recentBySession = new WeakMap<http2.Http2Session, number[]>()

  async function handle(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) {
    const recent = recentBySession.get(stream.session!) ?? []
    recentBySession.set(stream.session!, recent)
    const chunks: Buffer[] = []
    for await (const c of stream) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks)
    const answer = (status: number, reason?: string, extra: Record<string, unknown> = {}) => {
      if (stream.destroyed) return
      if (status !== 200) double.refused.push(`${status} ${reason}`)
      const id = (headers['apns-id'] as string | undefined) ?? randomUUID()
      stream.respond({ ':status': status, 'apns-id': id, 'content-type': 'application/json' })
      stream.end(reason ? JSON.stringify({ reason, ...extra }) : undefined)
    }
    if (headers[':method'] !== 'POST') return answer(405, 'MethodNotAllowed')
    const m = /^\/3\/device\/([0-9a-fA-F]+)$/.exec(String(headers[':path']))
    if (!m) return answer(404, 'BadPath')
    const auth = String(headers.authorization ?? '')
    if (!auth.startsWith('bearer ')) return answer(403, 'MissingProviderToken')
    const jwt = auth.slice(7)
    try {
      const header = decodeProtectedHeader(jwt)
      if (header.alg !== 'ES256' || header.kid !== opts.keyId)
        return answer(403, 'InvalidProviderToken')
      const { payload } = await jwtVerify(jwt, opts.publicKey, {
        algorithms: ['ES256'],
        issuer: opts.teamId,
      })
      if (typeof payload.iat !== 'number') return answer(403, 'InvalidProviderToken')
      if (payload.iat < Date.now() / 1000 - 3600) return answer(403, 'ExpiredProviderToken')
    } catch {
      return answer(403, 'InvalidProviderToken')
    }
    if (!double.jwts.has(jwt)) {
      const now = Date.now()
      while (recent.length && recent[0]! < now - 20 * 60_000) recent.shift()
      if (recent.length >= 2) return answer(429, 'TooManyProviderTokenUpdates')
      recent.push(now)
      double.jwts.add(jwt)
    }
    if (double.expireNext > 0) {
      double.expireNext--
      return answer(403, 'ExpiredProviderToken')
    }
    if (!headers['apns-topic']) return answer(400, 'MissingTopic')
    if (headers['apns-topic'] !== opts.bundleId) return answer(400, 'BadTopic')
    const type = headers['apns-push-type'] ?? 'alert'
    if (type !== 'alert' && type !== 'background') return answer(400, 'InvalidPushType')
    const priority = headers['apns-priority'] ?? '10'
    if (!['1', '5', '10'].includes(String(priority))) return answer(400, 'BadPriority')
    if (type === 'background' && priority !== '5') return answer(400, 'BadPriority')
    if (body.length === 0) return answer(400, 'PayloadEmpty')
    if (body.length > 4096) return answer(413, 'PayloadTooLarge')
    let payload: any
    try {
      payload = JSON.parse(body.toString('utf8'))
    } catch {
      return answer(400, 'BadPayload')
    }
    if (!payload || typeof payload.aps !== 'object') return answer(400, 'BadPayload')
    const token = m[1]!
    if (double.dead.has(token)) return answer(410, 'Unregistered', { timestamp: Date.now() })
    if (double.bad.has(token)) return answer(400, 'BadDeviceToken')
    double.delivered.push({ token, headers, payload, jwt })
    answer(200)
  }

  const server = http2.createSecureServer({ key, cert, allowHTTP1: false })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('session', (s) => {
    double.connections++
    sessions.add(s)
    s.on('close', () => sessions.delete(s))
  })
  server.on('stream', (stream, headers) => {
    handle(stream, headers).catch(() => stream.destroy())
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  double.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  return double
}
