import { BlockList, isIP } from 'node:net'
import type { App } from '../../core/app.js'
import { compileIpList } from '../../http/superuser-ips.js'
import type { CounterStore } from '../../tools/counter-store.js'
import { compileRules, selectRule, type CompiledRule, type RateLimitTarget } from './rules.js'

/** A request as the limiter sees it: the rule-selection facts plus who is asking from where. */
export interface RateLimitRequest extends RateLimitTarget {
  /** The client IP (settings.trustedProxy applied). */
  ip: string
  /** Superusers are never limited (reference §10.2). */
  superuser: boolean
  /** The id of the route's collection, when `collection` is set. */
  collectionId: string | null
  /** The route pattern (`/api/collections/:collection/records`), or null for unknown routes. */
  route: string | null
}

/** The outcome of counting a request against its rule. */
export interface RateLimitDecision {
  rule: CompiledRule
  allowed: boolean
  /** Requests counted in the window, this one included. */
  count: number
  /** When the window ends (epoch milliseconds). */
  resetAt: number
}

/** `settings.rateLimits` parsed, kept while the stored value stays the same. */
interface Parsed {
  rules: CompiledRule[]
  excluded: BlockList
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

/** True when `path` is the API root or below it; `/metrics` and the rest are never limited. */
export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/')
}

/**
 * The counter key of a request under a rule. Path rules share one counter per client across
 * every path they match (`/api/` caps a client's whole API use), as in PocketBase. Tag rules
 * count per route and collection (`*:auth` gives each collection's sign-in its own budget), as
 * PocketBase's collection-scoped buckets do.
 */
export function counterKey(rule: CompiledRule, req: RateLimitRequest): string {
  const scope =
    rule.matcher.kind === 'path' ? '' : `${req.collectionId ?? ''} ${req.method} ${req.route ?? ''}`
  return JSON.stringify([rule.label, rule.audience, scope, req.ip])
}

/**
 * The rate limiter of SPEC §2.7 and §8: reads `settings.rateLimits` on every request (so a change
 * applies to the next request), picks the most specific rule and counts the request in the store.
 * Has no HTTP in it.
 */
export class RateLimiter {
  private parsedFor: unknown = null
  private parsedKey = ''
  private parsed: Parsed = { rules: [], excluded: new BlockList() }

  constructor(
    private readonly app: App,
    private readonly store: CounterStore,
  ) {}

  /** The parsed rules and exclusions, recompiled only when their JSON changes. */
  private config(limits: Record<string, unknown>): Parsed {
    if (limits === this.parsedFor) return this.parsed
    const key = JSON.stringify([limits.rules ?? null, limits.excludedIPs ?? null])
    if (key !== this.parsedKey) {
      const ips = Array.isArray(limits.excludedIPs)
        ? limits.excludedIPs.filter((v): v is string => typeof v === 'string')
        : []
      this.parsed = { rules: compileRules(limits.rules), excluded: compileIpList(ips) }
      this.parsedKey = key
    }
    this.parsedFor = limits
    return this.parsed
  }

  /**
   * Counts the request against its rule. Null when the request is not limited at all: rate
   * limiting disabled, a path outside `/api/`, an OPTIONS preflight, a superuser, an excluded
   * IP, or no matching rule.
   */
  /** True when `settings.rateLimits.enabled`. */
  get enabled(): boolean {
    const limits: unknown = this.app.settings.get().rateLimits
    return isRecord(limits) && limits.enabled === true
  }

  async check(req: RateLimitRequest): Promise<RateLimitDecision | null> {
    const limits: unknown = this.app.settings.get().rateLimits
    if (!isRecord(limits) || limits.enabled !== true) return null
    if (req.method === 'OPTIONS' || !isApiPath(req.path) || req.superuser) return null
    const { rules, excluded } = this.config(limits)
    const version = isIP(req.ip)
    if (version !== 0 && excluded.check(req.ip, version === 4 ? 'ipv4' : 'ipv6')) return null
    const rule = selectRule(rules, req)
    if (!rule) return null
    const { count, resetAt } = await this.store.hit(counterKey(rule, req), rule.duration * 1000)
    return { rule, allowed: count <= rule.maxRequests, count, resetAt }
  }
}
