/**
 * Validation of a settings change (SPEC §2.7, reference §11): the patch may only name known
 * keys, and the merged result must hold the right JSON types and valid values, group by group.
 * Errors nest like the settings (`{smtp: {host: {code, message}}}`, array items by index) and
 * use PocketBase's codes.
 */

import { isIP } from 'node:net'
import { CronPattern } from 'croner'
import { fieldError, hasErrors, type FieldError, type ValidationErrors } from './errors.js'
import { isEmail } from './fields/email.js'
import { maxThreshold, minThreshold, required } from './fields/generic-errors.js'
import { checkApnsKey, checkServiceAccount, checkVapidKeys } from './settings-validate-push.js'
import { defaultSettings } from './settings.js'

/** What validation needs to know about the rest of the app. */
export interface SettingsValidationContext {
  /** True when a collection with this name exists (push trigger targets). */
  collectionExists(name: string): boolean
  /**
   * Errors per item of a list of IPs and CIDR subnets (`superuserIPs`,
   * `rateLimits.excludedIPs`), keyed by index: the HTTP layer's `validateIpList`.
   */
  checkIpList(list: unknown[]): ValidationErrors
}

type Obj = Record<string, unknown>

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Sets an own property, also for keys such as `__proto__` that plain assignment would not. */
function define<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  })
}

const isFieldError = (v: FieldError | ValidationErrors | undefined): v is FieldError =>
  typeof v?.code === 'string' && typeof v.message === 'string'

/** `validation_invalid_value`: the wrong JSON type (or a non-integer where one is needed). */
const invalid = (what: string): FieldError =>
  fieldError('validation_invalid_value', `Must be ${what}.`)
const blank = (s: string): boolean => s.trim() === ''
const isUrl = (s: string): boolean => {
  if (/\s/.test(s)) return false
  try {
    const u = new URL(s)
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''
  } catch {
    return false
  }
}
const notUrl = (): FieldError => fieldError('validation_is_url', 'Must be a valid url.')
const notIn = (): FieldError => fieldError('validation_in_invalid', 'Must be a valid value.')
const badFormat = (message = 'Must be in a valid format.'): FieldError =>
  fieldError('validation_match_invalid', message)
const lengthRange = (min: number, max: number): FieldError =>
  fieldError('validation_length_out_of_range', 'The length must be between {min} and {max}.', {
    min,
    max,
  })

const hostRe =
  /^(?=.{1,253}\.?$)[a-zA-Z0-9_](?:[a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?(?:\.[a-zA-Z0-9_](?:[a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?)*\.?$/
/** ozzo's `is.Host`: an IP address or a DNS name. */
const isHost = (s: string): boolean => isIP(s) !== 0 || hostRe.test(s)
const notHost = (): FieldError =>
  fieldError('validation_is_host', 'Must be a valid IP address or DNS name.')

/**
 * Reads the fields of one settings object with their expected JSON types, recording the first
 * error of each field; a getter returns `undefined` for a field of the wrong type.
 */
class Group {
  readonly errors: ValidationErrors = {}

  constructor(private readonly value: Obj) {}

  /** Records `error` for `key` unless the key already has one. */
  fail(key: string, error: FieldError | ValidationErrors | undefined): void {
    if (error && !(key in this.errors) && (isFieldError(error) || hasErrors(error)))
      this.errors[key] = error
  }

  string(key: string): string | undefined {
    const v = this.value[key]
    if (typeof v === 'string') return v
    this.fail(key, invalid('a string'))
    return undefined
  }

  boolean(key: string): boolean | undefined {
    const v = this.value[key]
    if (typeof v === 'boolean') return v
    this.fail(key, invalid('a boolean'))
    return undefined
  }

  integer(key: string): number | undefined {
    const v = this.value[key]
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v
    this.fail(key, invalid('an integer'))
    return undefined
  }

  array(key: string): unknown[] | undefined {
    const v = this.value[key]
    if (Array.isArray(v)) return v as unknown[]
    this.fail(key, invalid('a list'))
    return undefined
  }

  /** Validates a nested object with `check`, recording its errors under `key`. */
  object(key: string, check: (g: Group) => void): void {
    const v = this.value[key]
    if (!isObject(v)) return this.fail(key, invalid('an object'))
    const g = new Group(v)
    check(g)
    this.fail(key, g.errors)
  }

  /** A string that must be non-blank when `needed`; returns it when non-blank. */
  requiredString(key: string, needed: boolean | undefined): string | undefined {
    const s = this.string(key)
    if (s === undefined) return undefined
    if (!blank(s)) return s
    if (needed) this.fail(key, required())
    return undefined
  }

  /** An integer ≥ `min`; when `needed`, 0 counts as missing (`validation_required`). */
  count(key: string, min: number, needed = false): void {
    const n = this.integer(key)
    if (n === undefined) return
    if (needed && n === 0) this.fail(key, required())
    else if (n < min) this.fail(key, minThreshold(min))
  }
}

function meta(g: Group): void {
  for (const key of ['appName', 'senderName']) {
    const s = g.requiredString(key, true)
    if (s !== undefined && s.length > 255) g.fail(key, lengthRange(1, 255))
  }
  const url = g.requiredString('appURL', true)
  if (url !== undefined && !isUrl(url)) g.fail('appURL', notUrl())
  const sender = g.requiredString('senderAddress', true)
  if (sender !== undefined && !isEmail(sender))
    g.fail('senderAddress', fieldError('validation_is_email', 'Must be a valid email address.'))
  g.boolean('hideControls')
  const color = g.string('accentColor')
  if (color && !/^#[0-9a-fA-F]{6}$/.test(color))
    g.fail('accentColor', badFormat('Must be a 7-character hex color such as #1055c9.'))
}

function smtp(g: Group): void {
  const on = g.boolean('enabled')
  const host = g.requiredString('host', on)
  if (host !== undefined && !isHost(host)) g.fail('host', notHost())
  const port = g.integer('port')
  if (port !== undefined) {
    // 0 (unset) is allowed while SMTP is off.
    if (port === 0 && on) g.fail('port', required())
    else if (port < 0) g.fail('port', minThreshold(1))
    else if (port > 65535) g.fail('port', maxThreshold(65535))
  }
  g.string('username')
  g.string('password')
  const method = g.string('authMethod')
  if (method !== undefined && !['', 'PLAIN', 'LOGIN'].includes(method))
    g.fail('authMethod', notIn())
  g.boolean('tls')
  const local = g.string('localName')
  if (local && !isHost(local)) g.fail('localName', notHost())
}

function s3(g: Group): void {
  const on = g.boolean('enabled')
  for (const key of ['bucket', 'region', 'accessKey', 'secret']) g.requiredString(key, on)
  const endpoint = g.requiredString('endpoint', on)
  if (endpoint !== undefined && !isUrl(endpoint)) g.fail('endpoint', notUrl())
  g.boolean('forcePathStyle')
}

/** True for a 5-field cron expression or a `@daily`-style macro that croner can schedule. */
export function isCronExpression(expr: string): boolean {
  const s = expr.trim()
  if (!s.startsWith('@') && s.split(/\s+/).length !== 5) return false
  try {
    new CronPattern(s)
    return true
  } catch {
    return false
  }
}

function backups(g: Group): void {
  const cron = g.requiredString('cron', false)
  if (cron !== undefined && !isCronExpression(cron))
    g.fail('cron', fieldError('validation_invalid_cron', 'Invalid cron expression.'))
  g.count('cronMaxKeep', cron !== undefined ? 1 : 0, cron !== undefined)
  g.object('s3', s3)
}

function batch(g: Group): void {
  const on = g.boolean('enabled')
  g.count('maxRequests', 0, on)
  g.count('timeout', 0, on)
  g.count('maxBodySize', 0)
}

// A path (exact, or a prefix when it ends with `/`), or `<collection|*>:<tag>` (SPEC §2.7).
const labelRe = /^(?:\/[\w/.~%-]*|(?:\*|\w+):\w+)$/
const AUDIENCES = ['', '@guest', '@auth']

function rateLimits(g: Group, ctx: SettingsValidationContext): void {
  const on = g.boolean('enabled')
  ipList(g, 'excludedIPs', ctx)
  const rules = g.array('rules')
  if (!rules) return
  if (on && rules.length === 0) return g.fail('rules', required())
  const errors: ValidationErrors = {}
  const seen: { label: string; audience: string }[] = []
  rules.forEach((rule, i) => {
    if (!isObject(rule)) return void (errors[String(i)] = invalid('an object'))
    const r = new Group(rule)
    const label = r.requiredString('label', true)
    if (label !== undefined && !labelRe.test(label))
      r.fail('label', badFormat('Must be a path such as /api/ or a <collection or *>:<tag> pair.'))
    const audience = r.string('audience')
    if (audience !== undefined && !AUDIENCES.includes(audience)) r.fail('audience', notIn())
    r.count('duration', 1, true)
    r.count('maxRequests', 1, true)
    // PocketBase: the same label twice for one audience, or for "" and any audience, conflicts.
    if (label !== undefined && audience !== undefined && !('label' in r.errors)) {
      const clash = seen.some(
        (s) => s.label === label && (s.audience === audience || !s.audience || !audience),
      )
      if (clash)
        r.fail(
          'label',
          fieldError(
            'validation_conflicting_rate_limit_rule',
            'Rate limit rule configuration with label {label} already exists or conflicts with another rule.',
            { label },
          ),
        )
      seen.push({ label, audience })
    }
    if (hasErrors(r.errors)) errors[String(i)] = r.errors
  })
  g.fail('rules', errors)
}

/** A list of IPs and CIDR subnets (`superuserIPs`, `rateLimits.excludedIPs`). */
function ipList(g: Group, key: string, ctx: SettingsValidationContext): void {
  const list = g.array(key)
  if (list) g.fail(key, ctx.checkIpList(list))
}

// RFC 9110 `token`: the characters of a header name.
const headerRe = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

function trustedProxy(g: Group): void {
  const headers = g.array('headers')
  if (headers) {
    const errors: ValidationErrors = {}
    headers.forEach((h, i) => {
      if (typeof h !== 'string') errors[String(i)] = invalid('a string')
      else if (blank(h)) errors[String(i)] = required()
      else if (!headerRe.test(h)) errors[String(i)] = badFormat('Must be a valid HTTP header name.')
    })
    g.fail('headers', errors)
  }
  g.boolean('useLeftmostIP')
}

function logs(g: Group): void {
  g.count('maxDays', 0)
  g.integer('minLevel')
  g.boolean('logIP')
  g.boolean('logAuthId')
  g.count('maxDataSize', 0)
}

function llm(g: Group): void {
  const on = g.boolean('enabled')
  g.string('provider')
  const url = g.requiredString('baseUrl', on)
  if (url !== undefined && !isUrl(url)) g.fail('baseUrl', notUrl())
  g.string('apiKey')
  g.requiredString('model', on)
}

function sms(g: Group): void {
  const on = g.boolean('enabled')
  g.requiredString('accountSid', on)
  g.requiredString('authToken', on)
  const from = g.requiredString('fromNumber', on)
  if (from !== undefined && !/^\+[1-9]\d{1,14}$/.test(from))
    g.fail('fromNumber', badFormat('Must be a phone number in E.164 format such as +14155550100.'))
}

function push(g: Group, ctx: SettingsValidationContext): void {
  g.object('vapid', (v) => {
    const on = v.boolean('enabled')
    const pub = v.requiredString('publicKey', on)
    const priv = v.requiredString('privateKey', on)
    const errors = checkVapidKeys(pub, priv)
    v.fail('publicKey', errors.publicKey)
    v.fail('privateKey', errors.privateKey)
    const subject = v.requiredString('subject', on)
    if (subject !== undefined && !isContactUri(subject))
      v.fail('subject', badFormat('Must be a mailto: address or an https: URL.'))
  })
  g.object('fcm', (f) => {
    const on = f.boolean('enabled')
    const json = f.requiredString('serviceAccountJson', on)
    if (json !== undefined) f.fail('serviceAccountJson', checkServiceAccount(json))
  })
  g.object('apns', (a) => {
    const on = a.boolean('enabled')
    const key = a.requiredString('key', on)
    if (key !== undefined) a.fail('key', checkApnsKey(key))
    for (const id of ['keyId', 'teamId']) {
      const s = a.requiredString(id, on)
      if (s !== undefined && s.length !== 10)
        a.fail(
          id,
          fieldError('validation_length_invalid', 'The length must be exactly {min}.', { min: 10 }),
        )
      else if (s !== undefined && !/^[A-Za-z0-9]+$/.test(s)) a.fail(id, badFormat())
    }
    const bundle = a.requiredString('bundleId', on)
    if (bundle !== undefined && !/^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/.test(bundle))
      a.fail('bundleId', badFormat('Must be a bundle identifier such as com.example.app.'))
    a.boolean('production')
  })
  const triggers = g.array('triggers')
  if (!triggers) return
  const errors: ValidationErrors = {}
  triggers.forEach((trigger, i) => {
    if (!isObject(trigger)) return void (errors[String(i)] = invalid('an object'))
    const t = new Group(trigger)
    t.boolean('enabled')
    const name = t.requiredString('collection', true)
    if (name !== undefined && !ctx.collectionExists(name))
      t.fail(
        'collection',
        fieldError('validation_missing_collection', 'Must be the name of an existing collection.'),
      )
    const events = t.requiredString('events', true)
    if (events !== undefined && !isEventList(events))
      t.fail(
        'events',
        fieldError(
          'validation_in_invalid',
          'Must be a comma-separated subset of create, update, delete.',
        ),
      )
    for (const key of ['title', 'body', 'targetField']) t.string(key)
    if (hasErrors(t.errors)) errors[String(i)] = t.errors
  })
  g.fail('triggers', errors)
}

/** True for a comma-separated, duplicate-free subset of `create,update,delete`. */
function isEventList(s: string): boolean {
  const items = s.split(',').map((e) => e.trim())
  return (
    items.every((e) => e === 'create' || e === 'update' || e === 'delete') &&
    new Set(items).size === items.length
  )
}

/** A VAPID contact: `mailto:<address>` or an `https:` URL. */
function isContactUri(s: string): boolean {
  if (s.startsWith('mailto:')) return isEmail(s.slice('mailto:'.length))
  return s.startsWith('https:') && isUrl(s)
}

function payments(g: Group): void {
  g.string('webhookSecret')
}

/** The validator of each top-level key. */
const GROUPS: Record<string, (g: Group, ctx: SettingsValidationContext) => void> = {
  meta,
  smtp,
  s3,
  backups,
  batch,
  rateLimits,
  trustedProxy,
  logs,
  llm,
  sms,
  push,
  payments,
}

/** The keys of one array item, for the arrays of objects (their defaults may be empty). */
const ITEM_KEYS: Record<string, readonly string[]> = {
  'rateLimits.rules': ['label', 'audience', 'duration', 'maxRequests'],
  'push.triggers': ['enabled', 'collection', 'events', 'title', 'body', 'targetField'],
}

/** `validation_unknown_field` for every key of `patch` that the settings do not have. */
function unknownKeys(patch: unknown, template: unknown, path: string): ValidationErrors {
  const errors: ValidationErrors = {}
  const itemKeys = ITEM_KEYS[path]
  if (isObject(patch) && isObject(template)) {
    for (const [k, v] of Object.entries(patch)) {
      const sub = Object.hasOwn(template, k)
        ? unknownKeys(v, template[k], path ? `${path}.${k}` : k)
        : fieldError('validation_unknown_field', 'Unknown field.')
      if (isFieldError(sub) || hasErrors(sub)) define(errors, k, sub)
    }
  } else if (Array.isArray(patch) && itemKeys) {
    const template = Object.fromEntries(itemKeys.map((k) => [k, null]))
    patch.forEach((item, i) => {
      const sub = unknownKeys(item, template, `${path}[]`)
      if (hasErrors(sub)) errors[String(i)] = sub
    })
  }
  return errors
}

/** Deep-merges two error maps; on a clash the first error wins. */
function mergeErrors(a: ValidationErrors, b: ValidationErrors): ValidationErrors {
  const out: ValidationErrors = { ...a }
  for (const [k, v] of Object.entries(b)) {
    const mine = Object.hasOwn(out, k) ? out[k] : undefined
    if (mine === undefined) define(out, k, v)
    else if (!isFieldError(mine) && !isFieldError(v)) define(out, k, mergeErrors(mine, v))
  }
  return out
}

/**
 * Validates a settings change: `patch` as sent (unknown keys at any level are refused) and
 * `next`, the patch deep-merged onto the current settings (types and values of every group).
 * Returns the field errors, empty when the change is valid.
 */
export function validateSettings(
  patch: Record<string, unknown>,
  next: unknown,
  ctx: SettingsValidationContext,
): ValidationErrors {
  const unknown = unknownKeys(patch, defaultSettings(), '')
  if (!isObject(next)) return mergeErrors(unknown, { '': invalid('an object') })
  const top = new Group(next)
  for (const [key, check] of Object.entries(GROUPS)) top.object(key, (g) => check(g, ctx))
  ipList(top, 'superuserIPs', ctx)
  return mergeErrors(unknown, top.errors)
}
