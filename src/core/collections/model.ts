/**
 * The collection model: one internal shape, serialised both as SPEC's `schema` (options nested)
 * and as PocketBase v0.23's `fields` (options flat). See DECISIONS "collection field list".
 */
import type { DatabaseName } from '../../store/store.js'

/** The three collection types. */
export type CollectionType = 'base' | 'auth' | 'view'

/** One field of a collection's schema. */
export interface Field {
  id: string
  name: string
  type: string
  required: boolean
  unique: boolean
  /** System fields cannot be renamed or removed. */
  system: boolean
  /** Hidden fields are not returned to, writable by, or filterable by non-superusers. */
  hidden: boolean
  presentable: boolean
  /** PocketBase's help text for the field (`""` when absent); autodate fields have none. */
  help?: string
  /** Type-specific options (see `core/fields`). */
  options: Record<string, unknown>
}

/** A per-purpose token setting of an auth collection; `secret` is never serialised. */
export interface TokenConfig {
  duration: number
  secret: string
}

/** An e-mail template with `{APP_NAME}`-style placeholders. */
export interface EmailTemplate {
  subject: string
  body: string
}

/** Options of `auth` collections (SPEC §2.2 `authOptions`). */
export interface AuthOptions {
  authRule: string | null
  manageRule: string | null
  passwordAuth: { enabled: boolean; identityFields: string[] }
  mfa: { enabled: boolean; duration: number; rule: string }
  otp: {
    enabled: boolean
    duration: number
    length: number
    emailTemplate: EmailTemplate
    /** A text field holding an E.164 phone: when set and filled, the OTP goes by SMS (docs/sms.md). */
    smsField?: string
  }
  authAlert: { enabled: boolean; emailTemplate: EmailTemplate }
  oauth2: { enabled: boolean; providers: unknown[]; mappedFields: Record<string, string> }
  authToken: TokenConfig
  passwordResetToken: TokenConfig
  emailChangeToken: TokenConfig
  verificationToken: TokenConfig
  fileToken: TokenConfig
  verificationTemplate: EmailTemplate
  resetPasswordTemplate: EmailTemplate
  confirmEmailChangeTemplate: EmailTemplate
}

/** The rule keys every collection has, in serialisation order. */
export const ruleKeys = ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule'] as const

/** One of the five record rules. */
export type RuleKey = (typeof ruleKeys)[number]

/** A collection as stored and cached. */
export interface Collection {
  id: string
  name: string
  type: CollectionType
  system: boolean
  fields: Field[]
  indexes: string[]
  listRule: string | null
  viewRule: string | null
  createRule: string | null
  updateRule: string | null
  deleteRule: string | null
  /** The SELECT of a view collection. */
  viewQuery?: string
  /** Present for auth collections only. */
  authOptions?: AuthOptions
  /**
   * The database of the store its table lives in; `main` when absent. Set by the definition of
   * a system collection (`_logs` is `auxiliary`), stored with the collection, never serialised.
   */
  database?: DatabaseName
  /**
   * Fields whose values are written but never answered, not even to superusers (a system
   * collection's secrets, e.g. a webhook's `secret`). Set by the definition of a system
   * collection (`SystemCollectionSpec.writeOnly`) when the app loads it; neither stored nor
   * serialised.
   */
  writeOnly?: readonly string[]
  created: string
  updated: string
}

/** Finds a field by name (exact match). */
export function findField(collection: Collection, name: string): Field | undefined {
  return collection.fields.find((f) => f.name === name)
}

/** The database of the store a collection's table lives in. */
export function databaseOf(collection: Collection): DatabaseName {
  return collection.database ?? 'main'
}

/** The SQL table (or view) name of a collection. */
export function tableName(collection: Collection): string {
  return collection.name
}
