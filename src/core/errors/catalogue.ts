/**
 * The error catalogue: every field error code and every public message the API can answer, in
 * one typed table per family (docs/errors-and-limits.md lists them; `catalogue.test.ts` walks
 * them against the docs and the source). Built-in code never writes a code or a message inline:
 * it names a {@link ValidationKey} or a {@link messages} entry, so an unknown one fails the
 * typecheck.
 */
import { authMessages } from './messages-auth.js'
import { cronsSqlMessages } from './messages-crons-sql.js'
import { httpMessages } from './messages-http.js'
import { llmCodes, llmMessages } from './messages-llm.js'
import { oauth2Codes, oauth2Messages } from './messages-oauth2.js'
import { pbScriptMessages } from './messages-pb-scripts.js'
import { recordMessages } from './messages-records.js'
import { schemaMessages } from './messages-schema.js'
import { smsCodes, smsMessages } from './messages-sms.js'
import { vectorsMessages } from './messages-vectors.js'
import { authCodes } from './validation-auth.js'
import { collectionCodes } from './validation-collections.js'
import { commonCodes } from './validation-common.js'
import { fieldCodes } from './validation-fields.js'

/**
 * One catalogue entry: a fixed text, or a text computed from named arguments. In a field entry a
 * fixed text may hold `{param}` placeholders, filled from the `params` sent along with the error;
 * a computed text's arguments shape the message only and are never sent.
 */
export type Entry = string | ((args: never) => string)

/** The named arguments of a computed entry. */
export type Args<K extends string> = Readonly<Record<K, string | number>>

/**
 * The field error entries, keyed by code; a code with several messages has one entry per message,
 * keyed `code:variant` (the part before `:` is the code sent).
 */
export const validationMessages = {
  ...commonCodes,
  ...fieldCodes,
  ...collectionCodes,
  ...authCodes,
  ...smsCodes,
  ...llmCodes,
  ...oauth2Codes,
} as const

/** A key of {@link validationMessages}: a code, or `code:variant` for its other messages. */
export type ValidationKey = keyof typeof validationMessages

/** The stable `validation_*` codes a field error can carry. */
export type ValidationCode = ValidationKey extends infer K
  ? K extends `${infer C}:${string}`
    ? C
    : K
  : never

/** The top-level public messages (`message` of the `{code, message, data}` body), by key. */
export const messages = {
  ...httpMessages,
  ...recordMessages,
  ...authMessages,
  ...cronsSqlMessages,
  ...pbScriptMessages,
  ...schemaMessages,
  ...smsMessages,
  ...llmMessages,
  ...vectorsMessages,
  ...oauth2Messages,
} as const

/** A key of {@link messages}. */
export type MessageKey = keyof typeof messages

/**
 * The message tables of features, by feature name: a feature keeps its messages in its own
 * folder (`features/<name>/messages.ts`) and adds its table here by declaration merging
 * (`declare module` of this file, `interface FeatureMessages { <name>: typeof <table> }`), so its
 * texts are {@link ApiMessage}s too; its `Feature.messages` hands the table to the catalogue's
 * tests and docs. Core names none of them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface FeatureMessages {}

type Produced<E> = E extends (args: never) => infer R ? R : E

/** What the entries of a message table produce. */
type ProducedBy<T> = { [K in keyof T]: Produced<T[K]> }[keyof T]

/**
 * Every top-level message the catalogue can produce (template literal types for computed ones),
 * the features' included.
 */
export type ApiMessage =
  | ProducedBy<typeof messages>
  | { [F in keyof FeatureMessages]: ProducedBy<FeatureMessages[F]> }[keyof FeatureMessages]

/** A table of top-level messages, as a feature declares its own. */
export type MessageTable = Readonly<Record<string, Entry>>

/** The `{param}` names of a message template. */
type Placeholders<M> = M extends `${string}{${infer P}}${infer Rest}`
  ? P | Placeholders<Rest>
  : never

/**
 * What a field entry takes after its key: a computed entry its named arguments; a template its
 * params (required when it has placeholders; more params may be sent than it shows).
 */
export type ValidationArgs<E> = E extends (args: infer A) => string
  ? [args: A]
  : [Placeholders<E>] extends [never]
    ? [params?: Record<string, unknown>]
    : [params: Record<Placeholders<E>, unknown> & Record<string, unknown>]

/** The code a field entry sends: its key up to the first `:`. */
export function codeOf(key: ValidationKey): ValidationCode {
  const colon = key.indexOf(':')
  return (colon < 0 ? key : key.slice(0, colon)) as ValidationCode
}
