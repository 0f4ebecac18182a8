import { validationError } from '../../errors.js'
import { isEmail } from '../../fields/email.js'
import { isUrl, lengthRange, notUrl } from '../checks.js'
import { objectGroup } from '../group.js'

/** `meta`: the application's name, address and e-mail sender. */
export type MetaSettings = {
  appName: string
  appURL: string
  senderName: string
  senderAddress: string
  hideControls: boolean
  accentColor: string
}

/**
 * The application's URL: an absolute URL with a host, of any scheme as PocketBase allows
 * (`ftp://…`); no scheme-relative or scheme-less text (links in e-mails are built on it), and no
 * `javascript:`-like URL without a host.
 */
function isAppUrl(url: string): boolean {
  if (isUrl(url)) return true
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+/i.test(url)) return false
  try {
    return new URL(url).host !== ''
  } catch {
    return false
  }
}

/** The `meta` group: names of at most 255 characters, a URL, a sender address. */
export const metaSettings = objectGroup<MetaSettings>({
  key: 'meta',
  defaults: () => ({
    appName: 'svcbase',
    appURL: 'http://127.0.0.1:8090',
    senderName: 'Support',
    senderAddress: 'support@example.com',
    hideControls: false,
    accentColor: '#1055c9',
  }),
  check(g) {
    for (const key of ['appName', 'senderName']) {
      const s = g.requiredString(key, true)
      if (s !== undefined && s.length > 255) g.fail(key, lengthRange(1, 255))
    }
    const url = g.requiredString('appURL', true)
    if (url !== undefined && !isAppUrl(url)) g.fail('appURL', notUrl())
    const sender = g.requiredString('senderAddress', true)
    if (sender !== undefined && !isEmail(sender))
      g.fail('senderAddress', validationError('validation_is_email'))
    g.boolean('hideControls')
    // PocketBase's checks: the length first, then the hex digits.
    const color = g.string('accentColor')
    if (color && color.length !== 7)
      g.fail('accentColor', validationError('validation_length_invalid', { min: 7, max: 7 }))
    else if (color && !/^#[0-9a-fA-F]{6}$/.test(color))
      g.fail('accentColor', validationError('validation_is_hex_color'))
  },
})
