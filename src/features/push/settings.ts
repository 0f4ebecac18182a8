import { hasErrors, validationError, type ValidationErrors } from '../../core/errors.js'
import { isEmail } from '../../core/fields/email.js'
import {
  SettingsReader,
  badFormat,
  invalid,
  isObject,
  isUrl,
  notUrl,
  objectGroup,
  type SettingsValidationContext,
} from '../../core/settings/index.js'
import { checkApnsKey, checkServiceAccount, checkVapidKeys } from './settings-keys.js'

/** A record-event to push rule (SPEC §2.7). */
export type PushTrigger = {
  enabled: boolean
  collection: string
  /** A comma-separated subset of `create`, `update`, `delete`. */
  events: string
  title: string
  body: string
  /** Empty broadcasts; otherwise the record field matched against subscriptions' `recordRef`. */
  targetField: string
}

/** `push`: the Web Push, FCM and APNs backends and the triggers that use them. */
export type PushSettings = {
  /**
   * Lets Web Push endpoints reach loopback, private, link-local, CGNAT and ULA addresses
   * (development, tests); off: such endpoints are refused when stored and again when sent to.
   */
  allowPrivateNetworks: boolean
  vapid: {
    enabled: boolean
    /** Raw unpadded base64url P-256 public key (65 bytes uncompressed). */
    publicKey: string
    /** Write-only: raw unpadded base64url P-256 private key (32 bytes). */
    privateKey: string
    /** A `mailto:` or `https:` contact URI. */
    subject: string
  }
  fcm: {
    enabled: boolean
    /** Write-only: the service-account key file contents. */
    serviceAccountJson: string
    /** The FCM API base URL (DECISIONS "Service endpoints": Google's, an emulator, a test double). */
    apiUrl: string
    /** The OAuth token endpoint; empty: the service account's `token_uri`. */
    tokenUrl: string
  }
  apns: {
    enabled: boolean
    /** Write-only: the `.p8` token-auth key contents. */
    key: string
    keyId: string
    teamId: string
    bundleId: string
    production: boolean
    /** The APNs base URL; empty: Apple's production or sandbox host per `production`. */
    apiUrl: string
  }
  triggers: PushTrigger[]
}

declare module '../../core/settings/registry.js' {
  interface Settings {
    push: PushSettings
  }
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

function checkVapid(v: SettingsReader): void {
  const on = v.boolean('enabled')
  const pub = v.requiredString('publicKey', on)
  const priv = v.requiredString('privateKey', on)
  const errors = checkVapidKeys(pub, priv)
  v.fail('publicKey', errors.publicKey)
  v.fail('privateKey', errors.privateKey)
  const subject = v.requiredString('subject', on)
  if (subject !== undefined && !isContactUri(subject))
    v.fail('subject', badFormat('validation_match_invalid:push_subject'))
}

function checkApns(a: SettingsReader): void {
  const on = a.boolean('enabled')
  const key = a.requiredString('key', on)
  if (key !== undefined) a.fail('key', checkApnsKey(key))
  for (const id of ['keyId', 'teamId']) {
    const s = a.requiredString(id, on)
    if (s !== undefined && s.length !== 10)
      a.fail(id, validationError('validation_length_invalid', { min: 10 }))
    else if (s !== undefined && !/^[A-Za-z0-9]+$/.test(s)) a.fail(id, badFormat())
  }
  const bundle = a.requiredString('bundleId', on)
  if (bundle !== undefined && !/^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/.test(bundle))
    a.fail('bundleId', badFormat('validation_match_invalid:bundle_id'))
  a.boolean('production')
  checkEndpoint(a, 'apiUrl')
}

/** An optional service endpoint (`push.fcm.apiUrl`, `tokenUrl`, `push.apns.apiUrl`): an http(s) URL. */
function checkEndpoint(r: SettingsReader, key: string): void {
  const url = r.string(key)
  if (url !== undefined && url !== '' && !isUrl(url)) r.fail(key, notUrl())
}

function checkTriggers(g: SettingsReader, ctx: SettingsValidationContext): void {
  const triggers = g.array('triggers')
  if (!triggers) return
  const errors: ValidationErrors = {}
  triggers.forEach((trigger, i) => {
    if (!isObject(trigger)) return void (errors[String(i)] = invalid('an object'))
    const t = new SettingsReader(trigger)
    t.boolean('enabled')
    const name = t.requiredString('collection', true)
    if (name !== undefined && !ctx.collectionExists(name))
      t.fail('collection', validationError('validation_missing_collection'))
    const events = t.requiredString('events', true)
    if (events !== undefined && !isEventList(events))
      t.fail('events', validationError('validation_in_invalid:push_actions'))
    for (const key of ['title', 'body', 'targetField']) t.string(key)
    if (hasErrors(t.errors)) errors[String(i)] = t.errors
  })
  g.fail('triggers', errors)
}

/**
 * The `push` group: each backend's credentials are parsed the way the backend will read them
 * (so a setting that cannot work is refused when saved), and triggers name existing collections.
 */
export const pushSettings = objectGroup<PushSettings>({
  key: 'push',
  secrets: ['vapid.privateKey', 'fcm.serviceAccountJson', 'apns.key'],
  itemKeys: { triggers: ['enabled', 'collection', 'events', 'title', 'body', 'targetField'] },
  defaults: () => ({
    allowPrivateNetworks: false,
    vapid: { enabled: false, publicKey: '', privateKey: '', subject: '' },
    fcm: {
      enabled: false,
      serviceAccountJson: '',
      apiUrl: 'https://fcm.googleapis.com',
      tokenUrl: '',
    },
    apns: {
      enabled: false,
      key: '',
      keyId: '',
      teamId: '',
      bundleId: '',
      production: false,
      apiUrl: '',
    },
    triggers: [],
  }),
  check(g, ctx) {
    g.boolean('allowPrivateNetworks')
    g.object('vapid', checkVapid)
    g.object('fcm', (f) => {
      const on = f.boolean('enabled')
      const json = f.requiredString('serviceAccountJson', on)
      if (json !== undefined) f.fail('serviceAccountJson', checkServiceAccount(json))
      const api = f.requiredString('apiUrl', on)
      if (api !== undefined && !isUrl(api)) f.fail('apiUrl', notUrl())
      checkEndpoint(f, 'tokenUrl')
    })
    g.object('apns', checkApns)
    checkTriggers(g, ctx)
  },
})
