import type { ColumnKind } from '../../store/dialect.js'
import type { Collection, Field } from '../collections/model.js'
import type { FieldError } from '../errors.js'

/** Setter modifiers a body key may carry: `tags+`, `+tags`, `tags-`. */
export type Modifier = 'append' | 'prepend' | 'remove'

/** What field validation may look up outside the value itself. */
export interface FieldLookup {
  /** A collection by id or name. */
  findCollection(idOrName: string): Collection | undefined
  /** The ids among `ids` that do not exist in `collection`. */
  missingIds(collection: Collection, ids: readonly string[]): Promise<string[]>
}

/** Context of one value's validation. */
export interface ValidateContext {
  collection: Collection
  lookup: FieldLookup
  /** True on create. */
  isNew: boolean
  /** The stored value before this change (update only). */
  original?: unknown
}

/**
 * One field type: how its options look, how a submitted value is cast, validated, stored and
 * read back. Each type lives in its own file and is registered in `registry.ts`.
 */
export interface FieldType {
  readonly type: string
  /** The storage class of its column. */
  column(field: Field): ColumnKind
  /** Options a new field of this type starts with. */
  defaultOptions(): Record<string, unknown>
  /** Validates a field definition's options; errors are keyed by option name. */
  validateOptions(field: Field, lookup: FieldLookup): Record<string, FieldError>
  /** True when the value is a list (multi select, multi relation, multi file). */
  isMulti(field: Field): boolean
  /** The value a record starts with when nothing is submitted. */
  zero(field: Field): unknown
  /** Casts a submitted value (JSON or multipart-inferred) into the canonical value. */
  normalize(raw: unknown, field: Field): unknown
  /**
   * Applies a setter modifier (`+`/`-`) to the current canonical value; absent on types that
   * have none. Numbers add/subtract, lists append/prepend/remove.
   */
  applyModifier?(current: unknown, modifier: Modifier, raw: unknown, field: Field): unknown
  /** The modifiers `applyModifier` takes, when not all three; a body key with another is ignored. */
  readonly modifiers?: readonly Modifier[]
  /** Validates a canonical value; `null` when valid. */
  validate(value: unknown, field: Field, ctx: ValidateContext): Promise<FieldError | null>
  /** Last step before a value is stored when it was submitted (password hashing). */
  prepare?(value: unknown, field: Field): Promise<unknown>
  /** Canonical value → bound SQL parameter. */
  toDb(value: unknown, field: Field): unknown
  /** Stored column value → canonical value. */
  fromDb(raw: unknown, field: Field): unknown
  /** False for values never serialised (passwords). */
  readonly serialised?: boolean
}
