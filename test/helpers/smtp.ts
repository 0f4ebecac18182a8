import { simpleParser, type AddressObject } from 'mailparser'
import { SMTPServer } from 'smtp-server'

/** One message the test SMTP listener accepted, parsed. */
export interface ReceivedMail {
  /** Envelope sender (MAIL FROM). */
  from: string
  /** Envelope recipients (RCPT TO). */
  to: string[]
  /** The `From` header as sent, e.g. `"Support" <support@example.com>`. */
  fromHeader: string
  subject: string
  html: string
  text: string
  /** The user the client authenticated as, if it did. */
  authUser?: string
  /** The name the client sent with HELO/EHLO. */
  helo: string
  /** The `Cc` header as sent ('' when none). */
  ccHeader: string
  /** The `Bcc` header as sent ('' when none: a blind copy shows only in the envelope). */
  bccHeader: string
  /** The attached files (not inline ones): name, media type and content as UTF-8 text. */
  attachments: { filename: string; contentType: string; content: string }[]
}

/** A running in-process SMTP listener. */
export interface TestSmtp {
  host: string
  port: number
  /** Every message received so far, oldest first. */
  mails: ReceivedMail[]
  /** Every successful AUTH, oldest first. */
  auths: { username: string; method: string }[]
  /** Resolves with the first message (received or still to come) matching `predicate`. */
  waitForMail(
    predicate?: (mail: ReceivedMail) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedMail>
  close(): Promise<void>
}

/** The text of a parsed address header ('' when absent). */
function addressText(v: AddressObject | AddressObject[] | undefined): string {
  if (!v) return ''
  return (Array.isArray(v) ? v : [v]).map((a) => a.text).join(', ')
}

/**
 * Starts an SMTP listener on 127.0.0.1 on a random port: plain TCP, no STARTTLS, every message
 * parsed with mailparser. Without `user` anyone may send without AUTH; with it, AUTH PLAIN or
 * LOGIN with exactly `user`/`pass` is required (a wrong password gets 535).
 */
export async function startSmtp(opts: { user?: string; pass?: string } = {}): Promise<TestSmtp> {
  const mails: ReceivedMail[] = []
  const auths: TestSmtp['auths'] = []
  const waiters = new Set<(mail: ReceivedMail) => void>()

  const server = new SMTPServer({
    authOptional: opts.user === undefined,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    // NB: like Postfix's defaults (and unlike smtp-server's strict mode), accept `_` in domains.
    lenientAddressParsing: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (opts.user !== undefined && auth.username === opts.user && auth.password === opts.pass) {
        auths.push({ username: auth.username, method: auth.method })
        callback(null, { user: auth.username })
      } else {
        callback(new Error('Invalid username or password'))
      }
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const mail: ReceivedMail = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            fromHeader: parsed.from?.text ?? '',
            subject: parsed.subject ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            text: parsed.text ?? '',
            helo: session.hostNameAppearsAs,
            ccHeader: addressText(parsed.cc),
            bccHeader: addressText(parsed.bcc),
            attachments: parsed.attachments
              .filter((a) => a.contentDisposition !== 'inline')
              .map((a) => ({
                filename: a.filename ?? '',
                contentType: a.contentType,
                content: a.content.toString('utf8'),
              })),
            ...(session.user ? { authUser: String(session.user) } : {}),
          }
          mails.push(mail)
          for (const w of waiters) w(mail)
          callback()
        })
        .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err))))
    },
  })

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.server.address()
      if (address && typeof address === 'object') resolve(address.port)
      else reject(new Error('the SMTP listener has no port'))
    })
  })

  return {
    host: '127.0.0.1',
    port,
    mails,
    auths,
    waitForMail(predicate = () => true, timeoutMs = 5000) {
      const found = mails.find(predicate)
      if (found) return Promise.resolve(found)
      return new Promise<ReceivedMail>((resolve, reject) => {
        const waiter = (mail: ReceivedMail) => {
          if (!predicate(mail)) return
          clearTimeout(timer)
          waiters.delete(waiter)
          resolve(mail)
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          const seen = mails.map((m) => `${m.to.join(',')}: ${m.subject}`).join('; ') || 'none'
          reject(new Error(`no matching mail within ${timeoutMs} ms (received: ${seen})`))
        }, timeoutMs)
        waiters.add(waiter)
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
