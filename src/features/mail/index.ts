import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { badRequest } from '../../core/errors.js'
import { LogMailer } from '../../core/mail.js'
import { readBody } from '../../http/body.js'
import { requireSuperuser } from '../../http/guards.js'
import { requestInfo } from '../../http/request-info.js'
import { SwitchingMailer } from './switching-mailer.js'
import { sendTestEmail } from './test-email.js'

/**
 * The mail feature: offers the app's `mailer` service, which follows `settings.smtp` live (SMTP
 * while enabled, the log backend otherwise), and serves `POST /api/settings/test/email`
 * (superuser): 204 once the test email was handed to the backend, 400 for bad input or a failed
 * send. The SMTP transport is released when the app terminates (rebuilt on the next send).
 */
export function register(app: App, http: FastifyInstance): void {
  const mailer = new SwitchingMailer(() => app.settings.get().smtp, new LogMailer(app.logger))
  app.services.set('mailer', mailer)
  app.hooks.onTerminate.bind(async (e) => {
    mailer.close()
    await e.next()
  })

  http.post('/api/settings/test/email', async (req, reply) => {
    requireSuperuser(requestInfo(req))
    const { values } = await readBody(req).catch((err: unknown) => {
      throw badRequest('An error occurred while loading the submitted data.', {}, err)
    })
    await sendTestEmail(app, values)
    return reply.code(204).send()
  })
}
