import { LogMailer } from '../../core/mail.js'
import type { Feature } from '../../http/feature.js'
import { registerTestEmail } from './routes/test-email.js'
import { SwitchingMailer } from './switching-mailer.js'

/**
 * The mail feature: offers the app's `mailer` service, which follows `settings.smtp` live (SMTP
 * while enabled, the log backend otherwise), and serves `POST /api/settings/test/email`. The
 * SMTP transport is released when the app terminates (rebuilt on the next send).
 */
export function mailFeature(): Feature {
  return {
    name: 'mail',
    register: ({ app, http }) => {
      const mailer = new SwitchingMailer(() => app.settings.get().smtp, new LogMailer(app.logger))
      app.services.set('mailer', mailer)
      app.hooks.onTerminate.bind(async (e) => {
        mailer.close()
        await e.next()
      })
      registerTestEmail(app, http)
    },
  }
}
