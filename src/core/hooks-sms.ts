/**
 * SMS as the core sees it: the message, the sender the `sms` feature offers on `app.services`
 * (`app.services.get('sms').send({to, body})`, which runs `onSmsSend` around the backend), and
 * the hook's event. Core code (the OTP flow) finds the sender with {@link smsSender} without
 * knowing the feature; with the feature disabled there is none.
 */
import type { Hook, HookEvent } from '../tools/hook.js'
import type { App } from './app.js'

/** One text message. */
export interface SmsMessage {
  /** The recipient, an E.164 number such as `+14155550100`. */
  to: string
  /** The text (1-1600 characters). */
  body: string
}

/** What a send produced: the provider's message id, or null for the log backend. */
export interface SmsResult {
  sid: string | null
}

/**
 * Sends SMS; the app's implementation follows `settings.sms` on every send (Twilio-style REST
 * while enabled, the log backend otherwise) and runs `onSmsSend` around it. It throws an
 * `ApiError` 400 for a bad number or text and an `Error` naming the provider's answer when the
 * provider refuses or cannot be reached.
 */
export interface SmsSender {
  send(message: SmsMessage): Promise<SmsResult>
}

/**
 * The event of `onSmsSend`: every SMS, around the actual send (`e.next()` hands `e.message` to
 * the backend `settings.sms` selects). A handler may change the message, or skip `e.next()` to
 * send nothing. SMS are sent outside any transaction.
 */
export interface SmsEvent extends HookEvent {
  app: App
  /** The backend the settings select for this send. */
  backend: 'twilio' | 'log'
  message: SmsMessage
  /** Set once `e.next()` has sent the message. */
  result?: SmsResult
}

declare module './hooks.js' {
  interface AppHooks {
    /** Around every SMS (hooks-sms.ts). */
    onSmsSend: Hook<SmsEvent>
  }
}

declare module './services.js' {
  interface AppServices {
    /** The SMS backend (set by the sms feature): Twilio-style REST or the log backend. */
    sms: SmsSender
  }
}

/** The app's SMS sender, or undefined when the sms feature is disabled. */
export function smsSender(app: App): SmsSender | undefined {
  return app.services.find('sms')
}
