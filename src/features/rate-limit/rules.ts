/**
 * Rate-limit rules: parsing the stored `settings.rateLimits.rules` and choosing the one rule that
 * applies to a request. Pure: no HTTP, no settings, no clock.
 *
 * Choice (DECISIONS, overriding PocketBase's "first configured match"): the most specific label
 * wins — `METHOD /exact` > `/exact` > `<collection>:<tag>` > `*:<tag>` > `<tag>` > the longest
 * matching prefix (`/api/`). A rule whose audience does not fit the request is skipped, so the
 * next most specific one applies.
 */

/** Who a rule applies to: `''` everyone, `@guest` unauthenticated, `@auth` authenticated. */
export type RateLimitAudience = '' | '@guest' | '@auth'

/** A rule as stored in `settings.rateLimits.rules` (SPEC §2.7). */
export interface RateLimitRule {
  label: string
  audience: RateLimitAudience
  /** The window, in seconds. */
  duration: number
  /** Requests allowed per window. */
  maxRequests: number
}

/** What a label matches, parsed once per settings change. */
export type LabelMatcher =
  | { kind: 'path'; method: string | null; path: string; prefix: boolean }
  | { kind: 'tag'; collection: string | null; tag: string }
  | { kind: 'bareTag'; tag: string }

/** A valid rule with its parsed label and its position in the configured list. */
export interface CompiledRule extends RateLimitRule {
  matcher: LabelMatcher
  index: number
}

/** The facts about a request that rule selection needs. */
export interface RateLimitTarget {
  /** Upper-case HTTP method. */
  method: string
  /** The decoded URL path, without the query string. */
  path: string
  /** The name of the collection the route is scoped to (`:collection`), or null. */
  collection: string | null
  /** The route's tags, most specific first (`['authWithPassword', 'auth']`). */
  tags: readonly string[]
  authenticated: boolean
}

const METHOD_PATH = /^([A-Z]+) (\/\S*)$/
const PATH = /^\/\S*$/
const COLLECTION_TAG = /^(\*|\w+):(\w+)$/
const BARE_TAG = /^\w+$/

/** Parses a label (reference §10.1 forms); null when it is none of them. */
export function parseLabel(label: string): LabelMatcher | null {
  const methodPath = METHOD_PATH.exec(label)
  if (methodPath) {
    const path = methodPath[2]!
    return { kind: 'path', method: methodPath[1]!, path, prefix: path.endsWith('/') }
  }
  if (PATH.test(label))
    return { kind: 'path', method: null, path: label, prefix: label.endsWith('/') }
  const tag = COLLECTION_TAG.exec(label)
  if (tag) return { kind: 'tag', collection: tag[1] === '*' ? null : tag[1]!, tag: tag[2]! }
  if (BARE_TAG.test(label)) return { kind: 'bareTag', tag: label }
  return null
}

const isAudience = (v: unknown): v is RateLimitAudience =>
  v === '' || v === '@guest' || v === '@auth'

const isPositive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0

/**
 * Compiles the stored rules list. Entries that are not well-formed (unknown label form or
 * audience, a duration or maxRequests that is not a positive number) are left out, so a bad
 * entry never disables the others. A missing audience counts as `''`.
 */
export function compileRules(value: unknown): CompiledRule[] {
  if (!Array.isArray(value)) return []
  const out: CompiledRule[] = []
  value.forEach((item: unknown, index) => {
    if (typeof item !== 'object' || item === null) return
    const r = item as Record<string, unknown>
    const label = typeof r.label === 'string' ? r.label.trim() : ''
    const audience = r.audience ?? ''
    const matcher = label === '' ? null : parseLabel(label)
    if (!matcher || !isAudience(audience)) return
    if (!isPositive(r.duration) || !isPositive(r.maxRequests)) return
    const maxRequests = Math.floor(r.maxRequests)
    if (maxRequests < 1) return
    out.push({ label, audience, duration: r.duration, maxRequests, matcher, index })
  })
  return out
}

/** True when the rule's audience admits the request. */
function audienceFits(audience: RateLimitAudience, authenticated: boolean): boolean {
  return audience === '' || (audience === '@auth') === authenticated
}

/**
 * How specific a matching label is, as a sort key (smaller is more specific), or null when the
 * label does not match the request.
 */
export function specificity(matcher: LabelMatcher, target: RateLimitTarget): number[] | null {
  switch (matcher.kind) {
    case 'path': {
      if (matcher.method !== null && matcher.method !== target.method) return null
      const methodRank = matcher.method === null ? 1 : 0
      if (!matcher.prefix) return matcher.path === target.path ? [methodRank, 0] : null
      // As PocketBase: `/api/x/` covers `/api/x` itself and everything below it.
      if (!`${target.path}/`.startsWith(matcher.path)) return null
      return [5, -matcher.path.length, methodRank]
    }
    case 'tag': {
      const i = target.tags.indexOf(matcher.tag)
      if (i < 0) return null
      if (matcher.collection === null) return [3, i]
      const same =
        target.collection !== null &&
        target.collection.toLowerCase() === matcher.collection.toLowerCase()
      return same ? [2, i] : null
    }
    case 'bareTag': {
      const i = target.tags.indexOf(matcher.tag)
      return i < 0 ? null : [4, i]
    }
  }
}

/** Lexicographic comparison of two sort keys. */
function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/**
 * The one rule that applies to a request, or null: among the rules whose label matches and whose
 * audience admits the request, the most specific label; for the same label a rule for the
 * request's own audience (`@guest`/`@auth`) before an everyone rule; then the configured order.
 */
export function selectRule(
  rules: readonly CompiledRule[],
  target: RateLimitTarget,
): CompiledRule | null {
  let best: CompiledRule | null = null
  let bestKey: number[] = []
  for (const rule of rules) {
    if (!audienceFits(rule.audience, target.authenticated)) continue
    const key = specificity(rule.matcher, target)
    if (!key) continue
    key.push(rule.audience === '' ? 1 : 0, rule.index)
    if (best === null || compareKeys(key, bestKey) < 0) {
      best = rule
      bestKey = key
    }
  }
  return best
}
