import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { countSuperusers, systemRequest } from '../../core/auth/superusers.js'
import { badRequest, fieldError, forbidden } from '../../core/errors.js'
import { SUPERUSERS } from '../../core/request-info.js'
import { readBody } from '../../http/body.js'
import { requestInfo } from '../../http/request-info.js'
import { authResponse } from '../../core/auth/flow.js'

/** Options of the setup endpoints. */
export interface SetupOptions {
  /** The one-time token printed by `serve` while setup is needed. */
  setupToken: string
}

const isLoopback = (ip: string): boolean =>
  ip === '::1' || ip.startsWith('127.') || ip === '::ffff:127.0.0.1'

function sameSecret(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

/** `GET /api/setup/status` and `POST /api/setup` (DECISIONS "Setup"). */
export function register(app: App, http: FastifyInstance, options: SetupOptions): void {
  http.get('/api/setup/status', async () => ({ needsSetup: (await countSuperusers(app)) === 0 }))

  http.post('/api/setup', async (req) => {
    const { values } = await readBody(req)
    if (!isLoopback(req.ip)) {
      const token = typeof values.token === 'string' ? values.token : ''
      if (!sameSecret(token, options.setupToken))
        throw forbidden('A valid setup token is required for setup from a non-loopback address.')
    }
    const c = app.collections.get(SUPERUSERS)
    const body = {
      email: values.email,
      password: values.password,
      passwordConfirm: values.passwordConfirm,
      verified: true,
    }
    const created = await app.runInTransaction(async (tx) => {
      if ((await countSuperusers(tx)) > 0) {
        throw badRequest('Setup is already complete.', {
          email: fieldError('validation_setup_done', 'A superuser already exists.'),
        })
      }
      return tx.records.create(c, body, systemRequest(tx))
    })
    const record = await app.records.findById(c, String(created.id))
    return authResponse(app, c, record ?? created, requestInfo(req))
  })
}
