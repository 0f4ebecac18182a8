import { Transform, pipeline, type Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import { tooLarge } from '../../../core/errors.js'
import { featureHook } from '../../../core/hooks-features.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { readBody } from '../../../http/body.js'
import { requestInfo } from '../../../http/request-info.js'
import { parseBatchPayload } from '../request.js'
import { batchLimits, runBatch } from '../service.js'

const isMultipart = (req: FastifyRequest): boolean =>
  /^multipart\/form-data/i.test(req.headers['content-type'] ?? '')

/** Passes a body through, failing with 413 once it grows past `limit` bytes. */
function capped(payload: Readable, limit: number): Readable {
  let seen = 0
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length
      if (seen > limit) callback(tooLarge())
      else callback(null, chunk)
    },
  })
  return pipeline(payload, cap, () => {})
}

/**
 * `POST /api/batch` (reference §3): the route drops the global body limit for the live
 * `batch.maxBodySize` (checked in `preParsing`, before a byte is read), reads JSON or multipart
 * with `@jsonPayload` and `requests.N.<field>` files, and runs the items in one transaction.
 */
export function batchRoute(app: App, http: FastifyInstance): void {
  http.post(
    '/api/batch',
    {
      // NB: the real limit follows the settings live; Fastify's is fixed at registration.
      bodyLimit: Number.MAX_SAFE_INTEGER,
      preParsing: async (req, _reply, payload) => {
        const { maxBodySize } = batchLimits(app.settings.get().batch)
        const length = Number(req.headers['content-length'])
        if (Number.isFinite(length) && length > maxBodySize) throw tooLarge()
        // Multipart bodies are read from the raw request; their parts are capped in readBody.
        return isMultipart(req) ? payload : capped(payload, maxBodySize)
      },
    },
    async (req, reply) => {
      const limits = batchLimits(app.settings.get().batch)
      const body = await readBody(req, { maxFileSize: limits.maxBodySize })
      const uploaded = body.files.reduce((sum, f) => sum + f.size, 0)
      if (uploaded > limits.maxBodySize) throw tooLarge()
      const items = parseBatchPayload(body.values, body.files, limits.maxRequests)
      const gone = new AbortController()
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort()
      })
      if (req.raw.socket.destroyed) gone.abort()
      const info = requestInfo(req, {}, 'batch')
      const options = { timeoutMs: limits.timeoutMs, signal: gone.signal }
      const hook = featureHook(app, 'onBatchRequest')
      if (!hook?.length) return runBatch(app, items, info, options)
      // The run inside `onBatchRequest` (../hooks.ts).
      const answer = await triggerRequest(
        hook,
        requestEvent(app, info, { batch: items }),
        async (e) => e.json(200, await runBatch(app, e.batch, info, options)),
      )
      return sendHookResponse(reply, answer)
    },
  )
}
