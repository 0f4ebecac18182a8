import { randomString } from '../../tools/ids.js'
import { ensureAuthIndexes } from './index-text.js'
import type { AuthOptions, Collection, CollectionType, Field } from './model.js'

/** A field with every flag defaulted. */
export function makeField(partial: Partial<Field> & Pick<Field, 'name' | 'type'>): Field {
  return {
    id: partial.id ?? defaultFieldId(partial.type, partial.name),
    name: partial.name,
    type: partial.type,
    required: partial.required ?? false,
    unique: partial.unique ?? false,
    system: partial.system ?? false,
    hidden: partial.hidden ?? false,
    presentable: partial.presentable ?? false,
    help: partial.help ?? '',
    options: partial.options ?? {},
  }
}

/** PocketBase's default field id: `<type><crc32(name)>`. */
export function defaultFieldId(type: string, name: string): string {
  return `${type}${crc32(name)}`
}

/** CRC-32 (IEEE) of a UTF-8 string, as an unsigned decimal. */
export function crc32(text: string): number {
  let crc = 0xffffffff
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

/** The primary-key field every collection has. */
export function idField(): Field {
  return makeField({
    name: 'id',
    type: 'text',
    required: true,
    system: true,
    options: {
      min: 15,
      max: 15,
      pattern: '^[a-z0-9]+$',
      autogeneratePattern: '[a-z0-9]{15}',
      primaryKey: true,
    },
  })
}

/** The `created` and `updated` autodate fields (DECISIONS: every non-view collection has them). */
export function timestampFields(): Field[] {
  return [
    makeField({
      name: 'created',
      type: 'autodate',
      system: true,
      options: { onCreate: true, onUpdate: false },
    }),
    makeField({
      name: 'updated',
      type: 'autodate',
      system: true,
      options: { onCreate: true, onUpdate: true },
    }),
  ]
}

/** The system fields of auth collections, after `id`. */
export function authFields(): Field[] {
  return [
    makeField({
      name: 'password',
      type: 'password',
      required: true,
      system: true,
      hidden: true,
      options: { min: 8, max: 0, pattern: '', cost: 0 },
    }),
    makeField({
      name: 'tokenKey',
      type: 'text',
      required: true,
      system: true,
      hidden: true,
      options: {
        min: 30,
        max: 60,
        pattern: '',
        autogeneratePattern: '[a-zA-Z0-9]{50}',
        primaryKey: false,
      },
    }),
    makeField({
      name: 'email',
      type: 'email',
      required: true,
      system: true,
      options: { exceptDomains: [], onlyDomains: [] },
    }),
    makeField({ name: 'emailVisibility', type: 'bool', system: true }),
    makeField({ name: 'verified', type: 'bool', system: true }),
  ]
}

/** A fresh token secret of an auth collection. */
export const tokenSecret = (): string => randomString(50)

const template = (subject: string, body: string): { subject: string; body: string } => ({
  subject,
  body,
})

/** The auth options a new auth collection starts with (reference §13). */
export function defaultAuthOptions(superusers = false): AuthOptions {
  return {
    authRule: '',
    manageRule: null,
    passwordAuth: { enabled: true, identityFields: ['email'] },
    mfa: { enabled: false, duration: 600, rule: '' },
    otp: {
      enabled: false,
      duration: 180,
      length: 8,
      emailTemplate: template(
        'OTP for {APP_NAME}',
        "<p>Hello,</p>\n<p>Your one-time password is: <strong>{OTP}</strong></p>\n<p><i>If you didn't ask for the one-time password, you can ignore this email.</i></p>\n<p>\n  Thanks,<br/>\n  {APP_NAME} team\n</p>",
      ),
    },
    authAlert: {
      enabled: true,
      emailTemplate: template(
        'Login from a new location',
        "<p>Hello,</p>\n<p>We noticed a login to your {APP_NAME} account from a new location:</p>\n<p><em>{ALERT_INFO}</em></p>\n<p><strong>If this wasn't you, you should immediately change your {APP_NAME} account password to revoke access from all other locations.</strong></p>\n<p>If this was you, you may disregard this email.</p>\n<p>\n  Thanks,<br/>\n  {APP_NAME} team\n</p>",
      ),
    },
    oauth2: {
      enabled: false,
      providers: [],
      mappedFields: { id: '', name: '', username: '', avatarURL: '' },
    },
    authToken: { duration: superusers ? 86400 : 432000, secret: tokenSecret() },
    passwordResetToken: { duration: 1800, secret: tokenSecret() },
    emailChangeToken: { duration: 1800, secret: tokenSecret() },
    verificationToken: { duration: 86400, secret: tokenSecret() },
    fileToken: { duration: 180, secret: tokenSecret() },
    verificationTemplate: template(
      'Verify your {APP_NAME} email',
      '<p>Hello,</p>\n<p>Thank you for joining us at {APP_NAME}.</p>\n<p>Click on the button below to verify your email address.</p>\n<p>\n  <a class="btn" href="{APP_URL}/_/#/auth/confirm-verification/{TOKEN}" target="_blank" rel="noopener">Verify</a>\n</p>\n<p><i>If you didn\'t recently register, please ignore this email.</i></p>\n<p>\n  Thanks,<br/>\n  {APP_NAME} team\n</p>',
    ),
    resetPasswordTemplate: template(
      'Reset your {APP_NAME} password',
      '<p>Hello,</p>\n<p>Click on the button below to reset your password.</p>\n<p>\n  <a class="btn" href="{APP_URL}/_/#/auth/confirm-password-reset/{TOKEN}" target="_blank" rel="noopener">Reset password</a>\n</p>\n<p><i>If you didn\'t ask to reset your password, please ignore this email.</i></p>\n<p>\n  Thanks,<br/>\n  {APP_NAME} team\n</p>',
    ),
    confirmEmailChangeTemplate: template(
      'Confirm your {APP_NAME} new email address',
      '<p>Hello,</p>\n<p>Click on the button below to confirm your new email address.</p>\n<p>\n  <a class="btn" href="{APP_URL}/_/#/auth/confirm-email-change/{TOKEN}" target="_blank" rel="noopener">Confirm new email</a>\n</p>\n<p><i>If you didn\'t ask to change your email address, please ignore this email.</i></p>\n<p>\n  Thanks,<br/>\n  {APP_NAME} team\n</p>',
    ),
  }
}

/** A blank collection of a type with its required system fields. */
export function blankCollection(type: CollectionType, name = ''): Collection {
  const fields: Field[] = [idField()]
  if (type === 'auth') fields.push(...authFields())
  if (type !== 'view') fields.push(...timestampFields())
  return {
    id: '',
    name,
    type,
    system: false,
    fields,
    indexes: [],
    listRule: null,
    viewRule: null,
    createRule: null,
    updateRule: null,
    deleteRule: null,
    ...(type === 'view' ? { viewQuery: '' } : {}),
    ...(type === 'auth' ? { authOptions: defaultAuthOptions() } : {}),
    created: '',
    updated: '',
  }
}

/**
 * The scaffolds of SPEC §2.5: base has only `id`; auth adds its system fields and PocketBase's
 * two default indexes (named with a random suffix, as PocketBase does); a view has no field.
 */
export function scaffold(type: CollectionType): Collection {
  const c = blankCollection(type)
  if (type === 'base') c.fields = [idField()]
  if (type === 'view') c.fields = []
  if (type === 'auth') {
    c.fields = [idField(), ...authFields()]
    ensureAuthIndexes(c, randomString(10, 'abcdefghijklmnopqrstuvwxyz0123456789'))
  }
  return c
}
