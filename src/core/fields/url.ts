/**
 * The `url` field: a URL as PocketBase checks it (ozzo's `is.URL`, govalidator's `IsURL`: Go's
 * `url.Parse` must accept it and govalidator's URL pattern must match, so `example.com`,
 * `mailto:a@example.com` and `www.example.com/path` pass and `HTTP://EXAMPLE.COM` does not),
 * optionally restricted to `onlyDomains` or `exceptDomains` (compared to the host including its
 * port; a URL without `//` has no host).
 */

import { validationError } from '../errors.js'
import type { FieldType } from './field-type.js'
import { domainTextField } from './domains.js'
import { matchesPatternAsync } from './text-pattern.js'

// govalidator's patterns (patterns.go), for Go's RE2 (re2js).
const IP =
  '(([0-9a-fA-F]{1,4}:){7,7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:)|fe80:(:[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}|::(ffff(:0{1,4}){0,1}:){0,1}((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])|([0-9a-fA-F]{1,4}:){1,4}:((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9]))'
const SCHEMA = '((ftp|tcp|udp|wss?|https?):\\/\\/)'
const USERNAME = '(\\S+(:\\S*)?@)'
const PATH = '((\\/|\\?|#)[^\\s]*)'
const PORT = '(:(\\d{1,5}))'
const URL_IP =
  '([1-9]\\d?|1\\d\\d|2[01]\\d|22[0-3]|24\\d|25[0-5])(\\.(\\d{1,2}|1\\d\\d|2[0-4]\\d|25[0-5])){2}(?:\\.([0-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-5]))'
const SUBDOMAIN = '((www\\.)|([a-zA-Z0-9]+([-_\\.]?[a-zA-Z0-9])*[a-zA-Z0-9]\\.[a-zA-Z0-9]+))'
const URL_PATTERN =
  `^${SCHEMA}?${USERNAME}?((${URL_IP}|(\\[${IP}\\])|(([a-zA-Z0-9]([a-zA-Z0-9-_]+)?[a-zA-Z0-9]([-\\.][a-zA-Z0-9]+)*)|(${SUBDOMAIN}?))?` +
  `(([a-zA-Z\\x{00a1}-\\x{ffff}0-9]+-?-?)*[a-zA-Z\\x{00a1}-\\x{ffff}0-9]+)(?:\\.([a-zA-Z\\x{00a1}-\\x{ffff}]{1,}))?))\\.?${PORT}?${PATH}?$`

/** Go's `unescape`: `%` must start two hex digits; a host may not escape ASCII or hold `{`, ` `… */
function unescapes(s: string, host: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    if (c === '%') {
      if (!/^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) return false
      if (host && parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== '%25') return false
      i += 2
    } else if (host && c < '\x80' && !/[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/.test(c)) return false
  }
  return true
}

const validPort = (p: string): boolean => p === '' || /^:\d*$/.test(p)

/** Go's `url.Parse`: the host (`''` without an authority), or null when Go refuses the text. */
export function goUrlHost(raw: string): { host: string; path: string } | null {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return null
  const hash = raw.indexOf('#')
  const fragment = hash < 0 ? '' : raw.slice(hash + 1)
  if (!unescapes(fragment, false)) return null
  let rest = hash < 0 ? raw : raw.slice(0, hash)
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(rest)
  if (rest.startsWith(':')) return null
  if (scheme) rest = rest.slice(scheme[0].length)
  const query = rest.indexOf('?')
  if (query >= 0) rest = rest.slice(0, query)
  if (!rest.startsWith('/')) {
    if (scheme) return { host: '', path: '' }
    if (rest.split('/')[0]!.includes(':')) return null
  }
  let host = ''
  if ((scheme || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2)
    const slash = authority.indexOf('/')
    rest = slash < 0 ? '' : authority.slice(slash)
    if (slash >= 0) authority = authority.slice(0, slash)
    const at = authority.lastIndexOf('@')
    host = authority.slice(at + 1)
    if (at >= 0) {
      const user = authority.slice(0, at)
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(user) || !unescapes(user, false)) return null
    }
    if (host.startsWith('[')) {
      const close = host.lastIndexOf(']')
      if (close < 0 || !validPort(host.slice(close + 1))) return null
    } else if (host.includes(':') && !validPort(host.slice(host.lastIndexOf(':')))) return null
    if (!unescapes(host, true)) return null
  }
  return unescapes(rest, false) ? { host, path: rest } : null
}

/**
 * govalidator's `IsURL`; the URL's host for the domain options, or null when it is no URL. The
 * pattern runs on re2js (linear time), on the CPU pool when the value is long.
 */
export async function urlHost(value: string): Promise<string | null> {
  if ([...value].length >= 2083 || Buffer.byteLength(value) <= 3 || value.startsWith('.'))
    return null
  const bare = value.includes(':') && !value.includes('://')
  const parsed = goUrlHost(bare ? `http://${value}` : value)
  if (!parsed || parsed.host.startsWith('.')) return null
  if (parsed.host === '' && parsed.path !== '' && !parsed.path.includes('.')) return null
  if (!(await matchesPatternAsync(URL_PATTERN, value))) return null
  return goUrlHost(value)?.host ?? ''
}

/** The `url` field type. */
export const urlField: FieldType = domainTextField({
  type: 'url',
  withPort: true,
  domainOf: urlHost,
  invalid: validationError('validation_invalid_url'),
  notAllowed: validationError('validation_url_domain_not_allowed'),
})
