import { BlockList, isIP } from 'node:net'
import type { FastifyRequest } from 'fastify'
import type { App } from '../core/app.js'
import { forbidden, validationError, type ValidationErrors } from '../core/errors.js'
import { SUPERUSERS } from '../core/request-info.js'
import { routeUrl } from './request-info.js'

/** A parsed allow-list entry: one address, or a subnet when `prefix` is set. */
interface IpEntry {
  address: string
  family: 'ipv4' | 'ipv6'
  prefix?: number
}

/** Parses a single IP or a CIDR subnet (`10.0.0.0/8`, `2001:db8::/32`); null when invalid. */
export function parseIpOrSubnet(value: string): IpEntry | null {
  const [address = '', prefix, ...rest] = value.trim().split('/')
  if (rest.length > 0 || address.includes('%')) return null
  const version = isIP(address)
  if (version === 0) return null
  const family = version === 4 ? 'ipv4' : 'ipv6'
  if (prefix === undefined) return { address, family }
  if (!/^\d{1,3}$/.test(prefix)) return null
  const bits = Number(prefix)
  return bits <= (version === 4 ? 32 : 128) ? { address, family, prefix: bits } : null
}

/**
 * Validates a list of IPs and CIDR subnets (`superuserIPs`, `rateLimits.excludedIPs`): errors
 * per item, keyed by the item's index, with PocketBase's code `validation_invlaid_ip_or_subnet`
 * (sic). Null or undefined counts as an empty list; any other non-array value yields one
 * `validation_invalid_value` error under the key `''`.
 */
export function validateIpList(list: unknown): ValidationErrors {
  if (list === undefined || list === null) return {}
  if (!Array.isArray(list)) {
    return { '': validationError('validation_invalid_value:ip_list') }
  }
  const errors: ValidationErrors = {}
  list.forEach((item: unknown, i) => {
    if (typeof item !== 'string' || parseIpOrSubnet(item) === null)
      errors[String(i)] = validationError('validation_invlaid_ip_or_subnet')
  })
  return errors
}

/** Compiles a list of IPs and subnets into a BlockList; invalid entries are skipped. */
export function compileIpList(list: readonly string[]): BlockList {
  const blocks = new BlockList()
  for (const item of list) {
    const entry = typeof item === 'string' ? parseIpOrSubnet(item) : null
    if (!entry) continue
    if (entry.prefix === undefined) blocks.addAddress(entry.address, entry.family)
    else blocks.addSubnet(entry.address, entry.prefix, entry.family)
  }
  return blocks
}

/** True when `ip` is one of the list's addresses or inside one of its subnets. */
function listed(blocks: BlockList, ip: string): boolean {
  const version = isIP(ip)
  return version !== 0 && blocks.check(ip, version === 4 ? 'ipv4' : 'ipv6')
}

/** The auth routes of a collection: any route under `/api/collections/:param/` but its records. */
const collectionRoute = /^\/api\/collections\/:([^/]+)\/(.+)$/

/**
 * The superuser IP allow-list (SPEC §2.7, DECISIONS): when `settings.superuserIPs` is non-empty,
 * a client IP outside it gets 403 on every `_superusers` endpoint outside its records (sign-in,
 * refresh, OTP, reset, impersonation, …) and on every request made with a superuser's
 * credentials. The settings are read per request, so a change applies to the next one; the
 * compiled list is cached while the setting stays the same.
 */
export class SuperuserIpGuard {
  private key = ''
  private blocks = new BlockList()

  constructor(private readonly app: App) {}

  /** The compiled allow-list, or null when the list is empty (unrestricted). */
  private allowList(): BlockList | null {
    const list = this.app.settings.get().superuserIPs
    if (!Array.isArray(list) || list.length === 0) return null
    const key = JSON.stringify(list)
    if (key !== this.key) {
      this.blocks = compileIpList(list)
      this.key = key
    }
    return this.blocks
  }

  /**
   * Throws 403 when the request targets a `_superusers` endpoint outside its records from an
   * unlisted IP. Runs before the request is authenticated or its body read.
   */
  checkRoute(req: FastifyRequest, ip: string): void {
    const blocks = this.allowList()
    if (!blocks) return
    const match = collectionRoute.exec(routeUrl(req))
    if (!match || match[2] === 'records' || match[2]!.startsWith('records/')) return
    const param = (req.params as Record<string, unknown> | undefined)?.[match[1]!]
    if (typeof param !== 'string') return
    // The same lookup as the handlers' (id, or name case-insensitively).
    if (this.app.collections.find(param)?.name !== SUPERUSERS) return
    if (!listed(blocks, ip)) throw forbidden()
  }

  /** Throws 403 when a superuser's credentials are used from an unlisted IP. */
  checkAuth(isSuperuser: boolean, ip: string): void {
    if (!isSuperuser) return
    const blocks = this.allowList()
    if (blocks && !listed(blocks, ip)) throw forbidden()
  }
}
