import { type FieldError, hasErrors, validationError, type ValidationErrors } from '../../errors.js'
import { required } from '../../fields/generic-errors.js'
import { badFormat, notIn } from '../checks.js'
import { objectGroup } from '../group.js'
import { SettingsReader, invalid, isFieldError, isObject } from '../reader.js'

/** One rate-limit rule (SPEC §2.7, §8). */
export type RateLimitRule = {
  /** A path prefix (`/api/`), an exact path, or `<collection|*>:<tag>`. */
  label: string
  audience: '' | '@guest' | '@auth'
  /** The window in seconds. */
  duration: number
  maxRequests: number
}

/** `rateLimits`: per-client request limits (off by default). */
export type RateLimitSettings = {
  enabled: boolean
  excludedIPs: string[]
  rules: RateLimitRule[]
}

// A path (exact, or a prefix when it ends with `/`), optionally after a method (`GET /api/x`), a
// `<collection|*>:<tag>` pair (SPEC §2.7) or a bare tag: PocketBase's forms.
const labelRe = /^(?:(?:[A-Z]+ )?\/[\w/.~%-]*|(?:\*|\w+):\w+|\w+)$/
const AUDIENCES = ['', '@guest', '@auth']

/** Checks one rule; `seen` holds the earlier rules' label and audience, for conflicts. */
function checkRule(
  rule: unknown,
  seen: { label: string; audience: string }[],
): FieldError | ValidationErrors {
  if (!isObject(rule)) return invalid('an object')
  const r = new SettingsReader(rule)
  const label = r.requiredString('label', true)
  if (label !== undefined && !labelRe.test(label)) r.fail('label', badFormat())
  // NB: a rule without `audience` is for everyone (""), as PocketBase reads it.
  const audience = rule.audience === undefined ? '' : r.string('audience')
  if (audience !== undefined && !AUDIENCES.includes(audience)) r.fail('audience', notIn())
  r.count('duration', 1, true)
  r.count('maxRequests', 1, true)
  // PocketBase: the same label twice for one audience, or for "" and any audience, conflicts.
  if (label !== undefined && audience !== undefined && !('label' in r.errors)) {
    const clash = seen.some(
      (s) => s.label === label && (s.audience === audience || !s.audience || !audience),
    )
    if (clash) r.fail('label', validationError('validation_conflicting_rate_limit_rule', { label }))
    seen.push({ label, audience })
  }
  return r.errors
}

/** The `rateLimits` group: valid excluded IPs and non-conflicting rules (some while enabled). */
export const rateLimitsSettings = objectGroup<RateLimitSettings>({
  key: 'rateLimits',
  itemKeys: { rules: ['label', 'audience', 'duration', 'maxRequests'] },
  defaults: () => ({
    enabled: false,
    excludedIPs: [],
    rules: [
      { label: '*:auth', audience: '', duration: 3, maxRequests: 2 },
      { label: '*:create', audience: '', duration: 5, maxRequests: 20 },
      { label: '/api/batch', audience: '', duration: 1, maxRequests: 3 },
      { label: '/api/', audience: '', duration: 10, maxRequests: 300 },
    ],
  }),
  check(g, ctx) {
    const on = g.boolean('enabled')
    const excluded = g.array('excludedIPs')
    if (excluded) g.fail('excludedIPs', ctx.checkIpList(excluded))
    const rules = g.array('rules')
    if (!rules) return
    if (on && rules.length === 0) return g.fail('rules', required())
    const errors: ValidationErrors = {}
    const seen: { label: string; audience: string }[] = []
    rules.forEach((rule, i) => {
      const e = checkRule(rule, seen)
      if (isFieldError(e) || hasErrors(e)) errors[String(i)] = e
    })
    g.fail('rules', errors)
  },
})
