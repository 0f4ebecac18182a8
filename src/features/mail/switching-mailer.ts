import type { Mailer, MailMessage } from '../../core/mail.js'
import {
  DEFAULT_SMTP_TIMEOUTS,
  SmtpMailer,
  smtpConfigOf,
  type SmtpConfig,
  type SmtpTimeouts,
} from './smtp-mailer.js'

/**
 * The app's mailer: on every send it reads `settings.smtp` and uses SMTP while `enabled`, the
 * zero-config fallback (the log backend) otherwise. The SMTP transport is rebuilt only when the
 * connection values (password included) change, so a settings PATCH applies to the very next
 * mail without a restart, and the choice is made synchronously so no send sees half a change.
 */
export class SwitchingMailer implements Mailer {
  private smtp: { key: string; mailer: SmtpMailer } | null = null

  /**
   * @param readSmtp returns the current `settings.smtp` object (read on every send)
   * @param fallback the backend used while SMTP is disabled
   * @param timeouts bounds of each SMTP exchange phase
   */
  constructor(
    private readonly readSmtp: () => Record<string, unknown>,
    private readonly fallback: Mailer,
    private readonly timeouts: SmtpTimeouts = DEFAULT_SMTP_TIMEOUTS,
  ) {}

  /** Sends through the backend the settings select right now. */
  send(message: MailMessage): Promise<void> {
    return this.current().send(message)
  }

  /** The backend the current settings select, building or replacing the SMTP one as needed. */
  current(): Mailer {
    const smtp = this.readSmtp()
    if (smtp.enabled !== true) {
      this.close()
      return this.fallback
    }
    const config: SmtpConfig = smtpConfigOf(smtp)
    // smtpConfigOf builds its keys in a fixed order, so equal settings give an equal key.
    const key = JSON.stringify(config)
    if (this.smtp?.key !== key) {
      this.close()
      this.smtp = { key, mailer: new SmtpMailer(config, this.timeouts) }
    }
    return this.smtp.mailer
  }

  /** Releases the SMTP transport, if one was built. */
  close(): void {
    this.smtp?.mailer.close()
    this.smtp = null
  }
}
