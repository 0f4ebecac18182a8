import type { ValidationErrors } from '../../errors.js'
import { badFormat } from '../checks.js'
import { objectGroup } from '../group.js'
import { blank, invalid } from '../reader.js'

/** `trustedProxy`: where the client IP is read from behind a proxy (reference §10.4). */
export type TrustedProxySettings = {
  headers: string[]
  useLeftmostIP: boolean
}

// RFC 9110 `token`: the characters of a header name.
const headerRe = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** The `trustedProxy` group: a list of valid HTTP header names. */
export const trustedProxySettings = objectGroup<TrustedProxySettings>({
  key: 'trustedProxy',
  defaults: () => ({ headers: [], useLeftmostIP: false }),
  check(g) {
    const headers = g.array('headers')
    if (headers) {
      const errors: ValidationErrors = {}
      headers.forEach((h, i) => {
        if (typeof h !== 'string') errors[String(i)] = invalid('a string')
        // NB: a blank name is accepted, as PocketBase does, and skipped (http/client-ip.ts).
        else if (!blank(h) && !headerRe.test(h))
          errors[String(i)] = badFormat('validation_match_invalid:header_name')
      })
      g.fail('headers', errors)
    }
    g.boolean('useLeftmostIP')
  },
})
