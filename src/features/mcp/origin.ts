/**
 * DNS-rebinding protection of `/api/mcp` (MCP spec, "Security Warning" of the Streamable HTTP
 * transport: servers MUST validate `Origin`). A page on a hostile site whose name was rebound to
 * this server's address sends `Host: evil.example` and `Origin: http://evil.example`; both are
 * checked against what this server is known as:
 *
 * - `Origin`, when the request carries one, must be a loopback origin (`localhost`, `*.localhost`,
 *   `127.0.0.0/8`, `[::1]`, any port) or the origin of `meta.appURL`; `Origin: null` is refused;
 * - `Host` must be a loopback host or the host of `meta.appURL`, when the app URL names a host
 *   that is not loopback (the default app URL, `http://127.0.0.1:8090`, says nothing about the
 *   names a deployment answers to, so `Host` is not checked then).
 *
 * The settings are read per request, so a `PATCH /api/settings` of `meta.appURL` applies at once.
 */
import type { App } from '../../core/app.js'
import { classifyAddress, isLocalhostName } from '../../tools/ssrf.js'

/** True for a host name or address literal that is this machine (brackets allowed). */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '')
  if (isLocalhostName(bare)) return true
  return /^[\d.]+$/.test(bare) || bare.includes(':') ? classifyAddress(bare) === 'loopback' : false
}

/** The host name of a `Host` header value (port dropped), lowercase; undefined when malformed. */
function hostOf(value: string): string | undefined {
  try {
    return new URL(`http://${value}`).hostname.toLowerCase()
  } catch {
    return undefined
  }
}

function appUrl(app: App): URL | undefined {
  try {
    return new URL(app.settings.get().meta.appURL)
  } catch {
    return undefined
  }
}

/** Why the request is refused (which header, which value), or undefined when it may go on. */
export function rebindingRefusal(
  app: App,
  host: string | undefined,
  origin: string | undefined,
): { header: 'Origin' | 'Host'; value: string } | undefined {
  const app_ = appUrl(app)
  if (origin !== undefined) {
    let ok = false
    try {
      const o = new URL(origin)
      ok =
        (o.protocol === 'http:' || o.protocol === 'https:') &&
        (isLoopbackHost(o.hostname) || (app_ !== undefined && o.origin === app_.origin))
    } catch {
      ok = false
    }
    if (!ok) return { header: 'Origin', value: origin }
  }
  if (app_ && !isLoopbackHost(app_.hostname)) {
    const name = host === undefined ? undefined : hostOf(host)
    if (name === undefined || (!isLoopbackHost(name) && name !== app_.hostname.toLowerCase()))
      return { header: 'Host', value: host ?? '' }
  }
  return undefined
}
