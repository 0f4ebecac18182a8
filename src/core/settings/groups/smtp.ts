import { minThreshold, required } from '../../fields/generic-errors.js'
import { isHost, notHost, notIn } from '../checks.js'
import { objectGroup } from '../group.js'

/** `smtp`: the mail server; while disabled mail goes to the log backend. */
export type SmtpSettings = {
  enabled: boolean
  host: string
  port: number
  username: string
  /** Write-only. */
  password: string
  authMethod: '' | 'PLAIN' | 'LOGIN'
  tls: boolean
  localName: string
}

/** The `smtp` group: host and port required while enabled; `password` is write-only. */
export const smtpSettings = objectGroup<SmtpSettings>({
  key: 'smtp',
  secrets: ['password'],
  defaults: () => ({
    enabled: false,
    host: 'smtp.example.com',
    port: 587,
    username: '',
    password: '',
    authMethod: '',
    tls: false,
    localName: '',
  }),
  check(g) {
    const on = g.boolean('enabled')
    const host = g.requiredString('host', on)
    if (host !== undefined && !isHost(host)) g.fail('host', notHost())
    const port = g.integer('port')
    if (port !== undefined) {
      // 0 (unset) is allowed while SMTP is off; as PocketBase, no upper bound (a port past 65535
      // fails at the first connection, as a closed one does).
      if (port === 0 && on) g.fail('port', required())
      else if (port < 0) g.fail('port', minThreshold(0))
    }
    g.string('username')
    g.string('password')
    const method = g.string('authMethod')
    if (method !== undefined && !['', 'PLAIN', 'LOGIN'].includes(method))
      g.fail('authMethod', notIn())
    g.boolean('tls')
    const local = g.string('localName')
    if (local && !isHost(local)) g.fail('localName', notHost())
  },
})
