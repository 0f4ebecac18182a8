import type { App } from '../../core/app.js'
import {
  badRequest,
  hasErrors,
  messages,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import type { SmsEvent, SmsMessage, SmsResult, SmsSender } from '../../core/hooks-sms.js'
import type { SmsSettings } from './settings.js'

/** E.164: `+`, a country code not starting with 0, at most 15 digits in all. */
export const E164 = /^\+[1-9]\d{1,14}$/

/** The longest text a Twilio-style API takes (integrations.md §4). */
export const MAX_SMS_BODY = 1600

/** How long one provider request may take, answer read included. */
export const SMS_TIMEOUT_MS = 10_000

/** The most of a provider answer read (a Message resource or an error is a few hundred bytes). */
const MAX_ANSWER_BYTES = 64 * 1024

/** The field errors of a message: `to` an E.164 number, `body` 1-1600 characters. */
export function checkSms(message: Partial<Record<keyof SmsMessage, unknown>>): ValidationErrors {
  const errors: ValidationErrors = {}
  const { to, body } = message
  if (to === undefined || to === null || to === '')
    errors.to = validationError('validation_required')
  else if (typeof to !== 'string' || !E164.test(to))
    errors.to = validationError('validation_match_invalid:phone')
  if (body === undefined || body === null || body === '')
    errors.body = validationError('validation_required')
  else if (typeof body !== 'string')
    errors.body = validationError('validation_invalid_value:string')
  else if (body.length > MAX_SMS_BODY)
    errors.body = validationError('validation_length_too_long', { max: MAX_SMS_BODY })
  return errors
}

/**
 * The app's `sms` service: on every send it reads `settings.sms` and runs `onSmsSend` around
 * the backend they select, Twilio-style REST while `enabled`, else the log backend (the app
 * logger, as mail's). A bad message is a 400 `ApiError` (before and after the hook's handlers).
 */
export class SmsService implements SmsSender {
  constructor(
    private readonly app: App,
    private readonly timeoutMs = SMS_TIMEOUT_MS,
  ) {}

  async send(message: SmsMessage): Promise<SmsResult> {
    assertValid(message)
    const settings = this.app.settings.get().sms
    const event: Omit<SmsEvent, 'next'> = {
      app: this.app,
      backend: settings.enabled ? 'twilio' : 'log',
      message: { to: message.to, body: message.body },
    }
    await this.app.hooks.onSmsSend.trigger(event, async (e) => {
      assertValid(e.message)
      e.result =
        e.backend === 'twilio'
          ? await sendTwilio(settings, e.message, this.timeoutMs)
          : this.log(settings, e.message)
    })
    return event.result ?? { sid: null }
  }

  private log(settings: SmsSettings, message: SmsMessage): SmsResult {
    this.app.logger.info('sms (log backend: SMS is disabled)', {
      from: settings.fromNumber,
      to: message.to,
      body: message.body,
    })
    return { sid: null }
  }
}

function assertValid(message: SmsMessage): void {
  const errors = checkSms(message)
  if (hasErrors(errors)) throw badRequest(messages.smsInvalid, errors)
}

/**
 * One `POST {apiUrl}/2010-04-01/Accounts/{AccountSid}/Messages.json` with Basic auth and the
 * form fields `To`, `From`, `Body`. A non-2xx answer throws an error carrying the provider's
 * `message` and `code`; so do a timeout and an unreachable provider. No redirect is followed.
 */
export async function sendTwilio(
  settings: SmsSettings,
  message: SmsMessage,
  timeoutMs = SMS_TIMEOUT_MS,
): Promise<SmsResult> {
  const base = settings.apiUrl.replace(/\/+$/, '')
  const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`
  const credentials = Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')
  const signal = AbortSignal.timeout(timeoutMs)
  let status: number
  let text: string
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${credentials}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({
        To: message.to,
        From: settings.fromNumber,
        Body: message.body,
      }).toString(),
      redirect: 'manual',
      signal,
    })
    status = res.status
    text = await readCapped(res)
  } catch (err) {
    const reason = signal.aborted
      ? `no answer within ${timeoutMs / 1000} s`
      : err instanceof Error
        ? String((err.cause as Error | undefined)?.message ?? err.message)
        : String(err)
    throw new Error(`the SMS provider at ${base} could not be reached: ${reason}`, { cause: err })
  }
  let json: Record<string, unknown> | null = null
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed !== null && typeof parsed === 'object') json = parsed as Record<string, unknown>
  } catch {
    // not JSON: the text is reported as it is
  }
  if (status < 200 || status > 299) {
    const said =
      typeof json?.message === 'string' ? json.message : text.slice(0, 200) || '(empty answer)'
    const code = typeof json?.code === 'number' || typeof json?.code === 'string' ? json.code : null
    throw new Error(
      `the SMS provider answered ${status}: ${said}${code === null ? '' : ` (code ${code})`}`,
    )
  }
  return { sid: typeof json?.sid === 'string' ? json.sid : null }
}

/** The answer's text, at most {@link MAX_ANSWER_BYTES} of it. */
async function readCapped(res: Response): Promise<string> {
  if (!res.body) return ''
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
    if (size >= MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined)
      break
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES)
}
