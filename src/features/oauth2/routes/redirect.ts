import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import { messages } from '../../../core/errors.js'
import type { OAuth2Service } from '../service.js'

/** The realtime topic the SDK's all-in-one flow subscribes to. */
export const OAUTH2_TOPIC = '@oauth2'

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/**
 * The end of the redirect, as PocketBase answers it: with the dashboard built, a redirect to its
 * page (`../_/#/auth/oauth2-redirect-success|failure`; 307 after a GET, 303 after a form POST),
 * else a short page: 200 after a forwarded code, 400 otherwise.
 */
function page(app: App, req: FastifyRequest, reply: FastifyReply, ok: boolean): FastifyReply {
  if (app.services.find('dashboard')?.built()) {
    return reply
      .header('cache-control', 'no-store')
      .redirect(
        `../_/#/auth/oauth2-redirect-${ok ? 'success' : 'failure'}`,
        req.method === 'POST' ? 303 : 307,
      )
  }
  const text = ok ? messages.oauth2RedirectSuccess : messages.oauth2RedirectFailure
  return reply
    .code(ok ? 200 : 400)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(`<!DOCTYPE html><html><body><p>${escapeHtml(text)}</p></body></html>`)
}

const text = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : ''

/**
 * `GET` and `POST` (form_post) `/api/oauth2-redirect`: forwards `code`/`state`/`error` to the
 * realtime client whose id is the state and which is subscribed to `@oauth2` (from the same
 * IP), drops that subscription, and answers a short page. Apple's form_post `user` name is
 * kept for the exchange of its code.
 */
export function registerRedirect(http: FastifyInstance, app: App, oauth2: OAuth2Service): void {
  const handle = async (req: FastifyRequest, reply: FastifyReply, values: unknown) => {
    const v = (typeof values === 'object' && values !== null ? values : {}) as Record<
      string,
      unknown
    >
    const state = text(v.state)
    const code = text(v.code)
    const error = text(v.error)
    const messenger = app.services.find('messenger')
    if (state === '' || !messenger) return page(app, req, reply, false)
    const ip = req.svcIp || req.ip
    // On any instance sharing the data: the one holding the client's stream takes it, once.
    if (!(await messenger.takeSubscription(state, OAUTH2_TOPIC, ip)))
      return page(app, req, reply, false)
    // Apple posts the user's name (first sign-in only) beside the code
    if (typeof v.user === 'string') oauth2.rememberRedirectName(code, v.user)
    await messenger.sendToClient(state, OAUTH2_TOPIC, { state, code, ...(error ? { error } : {}) })
    return page(app, req, reply, error === '' && code !== '')
  }
  http.get('/api/oauth2-redirect', (req, reply) => handle(req, reply, req.query))
  http.post('/api/oauth2-redirect', (req, reply) => handle(req, reply, req.body))
}
