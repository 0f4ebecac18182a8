/**
 * A real OpenID Connect provider for tests (`oidc-provider`, test-components §8) on 127.0.0.1
 * with a free port, a scripted browser (fetch with `redirect: 'manual'` and a cookie jar) that
 * signs in at the dev interaction form and consents, and small local servers: a token endpoint
 * proxy that can rewrite what passes through, and a file server for avatars.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

/** What an account's claims hold, by `sub` (the login typed at the form). */
export interface TestAccount {
  email?: string
  email_verified?: boolean
  name?: string
  picture?: string
  preferred_username?: string
}

export interface TestClient {
  client_id: string
  client_secret: string
  redirect_uris: string[]
}

export interface TestOidc {
  issuer: string
  accounts: Map<string, TestAccount>
  close(): Promise<void>
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

/** Starts the provider with `clients`; accounts default to `<sub>@example.test`, verified. */
export async function startOidc(clients: TestClient[]): Promise<TestOidc> {
  const server = http.createServer()
  const issuer = await listen(server)
  const accounts = new Map<string, TestAccount>()
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      ...c,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'picture', 'preferred_username'],
    },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({
        sub,
        email: `${sub}@example.test`,
        email_verified: true,
        name: `User ${sub}`,
        ...accounts.get(sub),
      }),
    }),
    cookies: { keys: ['test-cookie-key'] },
    // Clients whose id ends in `-short` get codes and ID tokens that live 1 s (expiry tests).
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: (_ctx, _token, client) => (client.clientId.endsWith('-short') ? 1 : 60),
      Grant: 3600,
      IdToken: (_ctx, _token, client) => (client.clientId.endsWith('-short') ? 1 : 3600),
      Interaction: 3600,
      Session: 3600,
    },
    features: { devInteractions: { enabled: true } },
  })
  const callback = provider.callback()
  server.on('request', (req, res) => {
    void callback(req, res)
  })
  return { issuer, accounts, close: () => closeServer(server) }
}

/** A cookie jar (names only: every test host is 127.0.0.1). */
class Jar {
  private readonly cookies = new Map<string, string>()
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      const expired = attrs.some((a) => /^\s*(max-age=0|expires=Thu, 01 Jan 1970)/i.test(a.trim()))
      if (expired || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
}

const unescapeHtml = (s: string): string =>
  s.replace(/&(amp|quot|lt|gt|#x27|#39);/g, (_m, e: string) =>
    e === 'amp' ? '&' : e === 'quot' ? '"' : e === 'lt' ? '<' : e === 'gt' ? '>' : "'",
  )

/** Where the scripted browser stopped. */
export interface BrowseResult {
  /** The last URL: the one `stopAt` matched, or the last page fetched. */
  url: URL
  /** When stopped: the form body that would have been POSTed there (form_post), if any. */
  pendingBody?: string
  /** The last response, unless stopped before fetching, and its method. */
  response?: Response
  method?: string
  body?: string
}

/**
 * Follows `start` like a browser: redirects, the login form (any password, the login is the
 * account's `sub`), the consent form and form_post pages (submitted), until a URL matching `stopAt` (not fetched) or a page
 * that is none of those (fetched; its response returned).
 */
export async function browse(
  start: string,
  login: string,
  stopAt: (url: URL) => boolean = () => false,
): Promise<BrowseResult> {
  const jar = new Jar()
  let url = new URL(start)
  let method = 'GET'
  let body: string | undefined
  for (let hop = 0; hop < 25; hop++) {
    if (stopAt(url)) return { url, ...(body !== undefined ? { pendingBody: body } : {}) }
    const headers: Record<string, string> = { cookie: jar.header() }
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded'
    const res = await fetch(url, { method, headers, body, redirect: 'manual' })
    jar.store(res)
    const sent = method
    method = 'GET'
    body = undefined
    const location = res.headers.get('location')
    if (res.status >= 300 && res.status < 400 && location) {
      await res.arrayBuffer()
      url = new URL(location, url)
      continue
    }
    const text = await res.text()
    if (res.status === 200 && url.pathname.startsWith('/interaction/')) {
      method = 'POST'
      body = text.includes('name="login"')
        ? new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString()
        : new URLSearchParams({ prompt: 'consent' }).toString()
      continue
    }
    // response_mode=form_post: the page auto-submits its hidden inputs to the redirect URI
    const form = /<form method="post" action="([^"]+)">/.exec(text)
    if (res.status === 200 && form && text.includes('<title>Submitting Callback</title>')) {
      const inputs = [...text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)]
      url = new URL(unescapeHtml(form[1]!), url)
      method = 'POST'
      body = new URLSearchParams(
        inputs.map((m): [string, string] => [m[1]!, unescapeHtml(m[2]!)]),
      ).toString()
      continue
    }
    return { url, response: res, method: sent, body: text }
  }
  throw new Error('too many hops')
}

/** Runs the authorize URL to the redirect URI and returns the `code` and `state` there. */
export async function authorize(
  authURL: string,
  login: string,
  redirectURI: string,
): Promise<{ code: string; state: string }> {
  const done = await browse(authURL, login, (u) => u.href.startsWith(redirectURI))
  if (!done.url.href.startsWith(redirectURI))
    throw new Error(`stopped at ${done.url.href}: ${done.body ?? ''}`)
  return {
    code: done.url.searchParams.get('code') ?? '',
    state: done.url.searchParams.get('state') ?? '',
  }
}

/** A local HTTP server answering `handler`. */
export async function startHttp(
  handler: (
    req: http.IncomingMessage,
    body: Buffer,
    res: http.ServerResponse,
  ) => void | Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      Promise.resolve(handler(req, Buffer.concat(chunks), res)).catch((err: unknown) => {
        res.statusCode = 500
        res.end(String(err))
      })
    })
  })
  const url = await listen(server)
  return { url, close: () => closeServer(server) }
}

/**
 * A token endpoint in front of the real one: the form is rewritten by `request` on its way
 * in, the JSON answer by `response` on its way out (a man in the middle, for refusals).
 */
export async function startTokenProxy(target: string): Promise<{
  url: string
  request: ((form: URLSearchParams) => void) | null
  response: ((json: Record<string, unknown>) => void | Promise<void>) | null
  close(): Promise<void>
}> {
  const proxy = {
    url: '',
    request: null as ((form: URLSearchParams) => void) | null,
    response: null as ((json: Record<string, unknown>) => void | Promise<void>) | null,
    close: async () => {},
  }
  const server = await startHttp(async (_req, body, res) => {
    const form = new URLSearchParams(body.toString())
    proxy.request?.(form)
    const upstream = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    })
    const json = (await upstream.json()) as Record<string, unknown>
    if (upstream.ok) await proxy.response?.(json)
    res.statusCode = upstream.status
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify(json))
  })
  proxy.url = server.url
  proxy.close = () => server.close()
  return proxy
}
