import { createRequire } from 'node:module'
import type nodemailer from 'nodemailer'

/** nodemailer, loaded when the first SMTP mailer is built (never while mail goes to the log). */
const loadNodemailer = (): typeof nodemailer =>
  createRequire(import.meta.url)('nodemailer') as typeof nodemailer
import type { MailAddress, Mailer, MailMessage } from '../../core/mail.js'

/** The SMTP connection settings (`settings.smtp` without `enabled`), typed. */
export interface SmtpConfig {
  host: string
  port: number
  username: string
  password: string
  /** `PLAIN`, `LOGIN`, or `''` to let the client pick one the server offers. */
  authMethod: '' | 'PLAIN' | 'LOGIN'
  /** True: implicit TLS from the first byte; false: plain, upgraded by STARTTLS when offered. */
  tls: boolean
  /** The HELO/EHLO name; empty means the machine's host name. */
  localName: string
}

/** How long each phase of an SMTP exchange may take, in milliseconds. */
export interface SmtpTimeouts {
  connection: number
  greeting: number
  socket: number
  dns: number
}

/** Bounds that make a dead or silent server fail within seconds instead of minutes. */
export const DEFAULT_SMTP_TIMEOUTS: Readonly<SmtpTimeouts> = {
  connection: 10_000,
  greeting: 10_000,
  socket: 30_000,
  dns: 10_000,
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '')

/** Reads the connection part of `settings.smtp`, tolerating missing or mistyped values. */
export function smtpConfigOf(smtp: Record<string, unknown>): SmtpConfig {
  const method = text(smtp.authMethod).trim().toUpperCase()
  const port = Number(smtp.port)
  return {
    host: text(smtp.host).trim(),
    port: Number.isInteger(port) && port > 0 ? port : 587,
    username: text(smtp.username),
    password: text(smtp.password),
    authMethod: method === 'PLAIN' || method === 'LOGIN' ? method : '',
    tls: smtp.tls === true,
    localName: text(smtp.localName).trim(),
  }
}

/** An address as nodemailer takes it. */
const address = (t: MailAddress) => ({ name: t.name ?? '', address: t.address })

/**
 * Sends mail through an SMTP server with nodemailer, one connection per message (so closing the
 * mailer never cuts a message in flight).
 */
export class SmtpMailer implements Mailer {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>
  private readonly host: string

  constructor(config: SmtpConfig, timeouts: SmtpTimeouts = DEFAULT_SMTP_TIMEOUTS) {
    this.host = config.host
    this.transport = loadNodemailer().createTransport({
      host: config.host,
      port: config.port,
      secure: config.tls,
      // NB: with secure false nodemailer upgrades by STARTTLS whenever the server offers it.
      ...(config.localName ? { name: config.localName } : {}),
      ...(config.username
        ? {
            auth: {
              user: config.username,
              pass: config.password,
              ...(config.authMethod ? { method: config.authMethod } : {}),
            },
          }
        : {}),
      connectionTimeout: timeouts.connection,
      greetingTimeout: timeouts.greeting,
      socketTimeout: timeouts.socket,
      dnsTimeout: timeouts.dns,
    })
  }

  /** Sends one message; rejects with the server's or the network's error. */
  async send(message: MailMessage): Promise<void> {
    // An empty host would make nodemailer fall back to localhost, which nobody configured.
    if (this.host === '') throw new Error('SMTP is enabled but smtp.host is empty')
    await this.transport.sendMail({
      from: { name: message.from.name ?? '', address: message.from.address },
      to: message.to.map(address),
      subject: message.subject,
      html: message.html,
      ...(message.text ? { text: message.text } : {}),
      ...(message.headers ? { headers: message.headers } : {}),
      ...(message.cc?.length ? { cc: message.cc.map(address) } : {}),
      ...(message.bcc?.length ? { bcc: message.bcc.map(address) } : {}),
      ...(message.attachments?.length
        ? {
            attachments: message.attachments.map((a) => ({
              filename: a.filename,
              content: a.content,
            })),
          }
        : {}),
    })
  }

  /** Releases the transport; messages already being sent finish on their own connections. */
  close(): void {
    this.transport.close()
  }
}
