import type { FastifyInstance } from 'fastify'
import type { App, AppConfig } from './core/app.js'
import { createApp } from './core/create-app.js'
import { randomString } from './tools/ids.js'
import { registerFieldsPicker } from './http/fields.js'
import { createHttp, type HttpOptions } from './http/server.js'
import * as apiKeys from './features/api-keys/index.js'
import * as apple from './features/apple/index.js'
import * as auth from './features/auth/index.js'
import * as collections from './features/collections/index.js'
import * as files from './features/files/index.js'
import * as health from './features/health/index.js'
import * as mail from './features/mail/index.js'
import * as records from './features/records/index.js'
import * as settings from './features/settings/index.js'
import * as setup from './features/setup/index.js'
import * as rateLimit from './features/rate-limit/index.js'
import * as logs from './features/logs/index.js'
import * as metrics from './features/metrics/index.js'
import * as realtime from './features/realtime/index.js'
import * as batch from './features/batch/index.js'
import * as storage from './features/storage/index.js'
import * as notBuilt from './features/not-built/index.js'
import * as llm from './features/llm/index.js'
import * as sms from './features/sms/index.js'
import * as push from './features/push/index.js'
import * as payments from './features/payments/index.js'

/** How long `close()` lets requests in flight finish before their connections are cut. */
export const CLOSE_GRACE_MS = 3_000

/** A composed server: the app and its HTTP instance. */
export interface Server {
  app: App
  http: FastifyInstance
  /** The one-time setup token, valid while no superuser exists. */
  setupToken: string
  close(): Promise<void>
}

/** The composition root: builds the app, the HTTP instance, and registers every feature. */
export async function createServer(
  config: AppConfig,
  httpOptions: HttpOptions = {},
): Promise<Server> {
  const app = await createApp(config)
  const http = await createHttp(app, httpOptions)
  const setupToken = randomString(32)
  registerFieldsPicker(http)
  health.register(app, http)
  setup.register(app, http, { setupToken })
  collections.register(app, http)
  records.register(app, http)
  files.register(app, http)
  auth.register(app, http)
  settings.register(app, http)
  llm.register(app)
  sms.register(app)
  push.register(app)
  payments.register(app)
  mail.register(app, http)
  apiKeys.register(app, http)
  apple.register(app, http)
  rateLimit.register(app, http)
  logs.register(app, http)
  metrics.register(app, http)
  realtime.register(app, http)
  batch.register(app, http)
  storage.register(app, http)
  notBuilt.register(app, http)
  try {
    await http.ready()
    // The scheduler and the features' background tasks start here; `close` stops them.
    await app.serve()
  } catch (err) {
    await http.close().catch(() => undefined)
    await app.close()
    throw err
  }
  return {
    app,
    http,
    setupToken,
    async close() {
      // Idle keep-alive connections close at once; a request still running (a slow upload, a
      // client that stopped sending its body) gets a grace period, then its socket is cut.
      const cut = setTimeout(() => http.server.closeAllConnections(), CLOSE_GRACE_MS)
      try {
        await http.close()
      } finally {
        clearTimeout(cut)
      }
      // onTerminate: features stop their tasks (the log queue is flushed), then the databases close.
      await app.close()
    },
  }
}
