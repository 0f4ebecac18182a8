import { validationError } from '../../errors.js'
import { isEmail } from '../../fields/email.js'
import { badFormat, isUrl, lengthRange, notUrl } from '../checks.js'
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

/** The `meta` group: names of at most 255 characters, an http(s) URL, a sender address. */
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
    if (url !== undefined && !isUrl(url)) g.fail('appURL', notUrl())
    const sender = g.requiredString('senderAddress', true)
    if (sender !== undefined && !isEmail(sender))
      g.fail('senderAddress', validationError('validation_is_email'))
    g.boolean('hideControls')
    const color = g.string('accentColor')
    if (color && !/^#[0-9a-fA-F]{6}$/.test(color))
      g.fail('accentColor', badFormat('validation_match_invalid:hex_color'))
  },
})
