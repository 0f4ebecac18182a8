import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { ApiError, badRequest, hasErrors, messages } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { checkSms } from '../service.js'

/** The text of a test SMS. */
export const TEST_SMS_BODY = 'svcbase test SMS: your SMS settings work.'

/**
 * `POST /api/settings/test/sms` `{to}` (superuser): sends a fixed test text to `to` through the
 * `sms` service (so through `onSmsSend` and the backend `settings.sms` selects). 204 once sent;
 * 400 `Failed to send the test SMS.` with a field error for a bad number, 400 with the
 * provider's message when the send fails.
 */
export function registerTestSms(app: App, http: FastifyInstance): void {
  http.post('/api/settings/test/sms', async (req, reply) => {
    requireSuperuser(requestInfo(req))
    const { values } = await readBody(req).catch((err: unknown) => {
      throw badRequest(messages.loadFailed, {}, err)
    })
    const errors = checkSms({ to: values.to, body: TEST_SMS_BODY })
    if (hasErrors(errors)) throw badRequest(messages.testSmsFailed, errors)
    try {
      await app.services.get('sms').send({ to: String(values.to), body: TEST_SMS_BODY })
    } catch (err) {
      if (err instanceof ApiError) throw badRequest(messages.testSmsFailed, err.data, err)
      const raw = err instanceof Error ? err.message : String(err)
      throw badRequest(messages.testSmsRawError({ raw }), {}, err)
    }
    return reply.code(204).send()
  })
}
