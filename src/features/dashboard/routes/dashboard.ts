/**
 * `/_/`: the admin dashboard's single-page app (hash routes, so only `/_/` and its files need
 * routes), with its caching and security headers, and `/_/branding` for its public pages.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import { ApiError, messages, notFound } from '../../../core/errors.js'
import type { UiFile, UiFiles } from '../service.js'

/**
 * The dashboard's Content-Security-Policy: everything from this origin only (no CDN, no inline
 * script); inline styles for components that position things; images also from `data:`/`blob:`
 * (file previews before upload).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

function send(req: FastifyRequest, reply: FastifyReply, file: UiFile): FastifyReply {
  reply
    .header('content-type', file.type)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', DASHBOARD_CSP)
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
  if (file.gzip) {
    reply.header('vary', 'Accept-Encoding')
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      return reply.header('content-encoding', 'gzip').send(file.gzip)
    }
  }
  return reply.send(file.body)
}

/** Registers `/_`, `/_/`, `/_/*` and `/_/branding`. */
export function registerDashboard(app: App, http: FastifyInstance, files: UiFiles): void {
  const notBuilt = new ApiError(503, messages.dashboardNotBuilt)
  const index = (req: FastifyRequest, reply: FastifyReply) => {
    const file = files.get('index.html')
    if (!file) throw notBuilt
    return send(req, reply, file)
  }
  http.get('/_', async (_req, reply) => reply.redirect('/_/', 301))
  http.get('/_/', index)
  http.get('/_/index.html', index)
  // Public: the app's name and accent colour for the pages e-mails link to (no sign-in there).
  http.get('/_/branding', async (_req, reply) => {
    const { appName, accentColor } = app.settings.get().meta
    reply.header('cache-control', 'no-cache')
    return { appName, accentColor }
  })
  http.get('/_/*', async (req, reply) => {
    const path = (req.params as { '*': string })['*']
    const file = files.get(path)
    if (!file) {
      if (!files.built) throw notBuilt
      throw notFound()
    }
    return send(req, reply, file)
  })
}
