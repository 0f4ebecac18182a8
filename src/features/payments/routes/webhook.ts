import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { MAX_BODY_BYTES, parseEvent, receiveEvent, verifySignature } from '../service.js'

/**
 * `POST /api/payments/webhook`: unauthenticated, verified by its `Stripe-Signature` header.
 * It lives in its own Fastify context whose only body parser keeps the raw bytes, whatever
 * the content type, so the signature is checked over exactly what was sent; the root parsers
 * (JSON, urlencoded, multipart) stay as they are for every other route.
 */
export async function registerWebhookRoute(app: App, http: FastifyInstance): Promise<void> {
  await http.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => {
      done(null, body)
    })
    scope.post('/api/payments/webhook', { bodyLimit: MAX_BODY_BYTES }, async (req) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
      const header = req.headers['stripe-signature']
      verifySignature(
        raw,
        Array.isArray(header) ? header.join(',') : header,
        app.settings.get().payments.webhookSecret,
      )
      await receiveEvent(app, parseEvent(raw))
      // Stripe reads only the status; a replay answers the same.
      return { received: true }
    })
  })
}
