/**
 * What the rule compiler works with: the caller's `RuleContext`, the per-compile state (alias
 * counter, the join scope of the whole filter) and the resolved `Operand`.
 */
import type { ComparisonNode, FilterNode } from '../../tools/filter/index.js'
import type { Dialect } from '../../store/dialect.js'
import { ident, join, sql, type Sql } from '../../store/sql.js'
import type { Collection, Field } from '../collections/model.js'
import type { RequestInfo } from '../request-info.js'

/** Everything a filter, sort or rule needs to compile against one collection and request. */
export interface RuleContext {
  dialect: Dialect
  collection: Collection
  /** Alias under which the collection's table appears in the FROM clause of the outer query. */
  alias: string
  findCollection(idOrName: string): Collection | undefined
  /** Request values for `@request.*`; null when only validating a rule at collection save. */
  request: RequestInfo | null
  /**
   * True for a client-supplied filter/sort of a non-superuser: hidden fields are rejected,
   * `@collection`/`@request` are rejected with 403, and joined collections must be listable.
   */
  restricted: boolean
  /** The time macros such as `@now` are computed from; defaults to the current time. */
  now?: Date
  /**
   * True when `alias` reads the collection's own table (not a one-row derived table of values):
   * `?=` conditions on its multi-valued fields may then read their junction tables
   * (`junction.ts`), whose rows the table's triggers keep.
   */
  tableRows?: boolean
}

/** The value class of an operand, which decides how `=` treats NULL and `''`. */
export type ValueType = 'text' | 'number' | 'bool' | 'json' | 'any'

/** A resolved operand: an SQL expression valid inside the filter's join scope. */
export interface Operand {
  readonly sql: Sql
  readonly type: ValueType
  /** Compared with `IS`/`IS NOT` only, never COALESCE'd (JSON values, geoDistance). */
  readonly noCoalesce?: boolean
  /** The value when known at compile time (literal, macro, `@request.*` value). */
  readonly constant?: { readonly value: string | number | boolean | null; readonly lower?: boolean }
  /** True when the operand ranges over several rows (multi relation, `:each`, `@collection`). */
  readonly multi?: boolean
  /** Re-resolves a multi operand into another join sink, with fresh aliases. */
  readonly rebuild?: (sink: JoinSink) => Operand
  /** True when the value is read from stored rows; only such operands can be sorted by. */
  readonly fromColumn?: boolean
  /** A condition ANDed to any comparison of this operand (auth e-mail visibility). */
  readonly guard?: Sql
  /**
   * The affinity SQLite gives the expression: set for a plain column (`numeric` for number,
   * bool and JSON columns, `text` for the others), absent for computed values and constants.
   */
  readonly affinity?: 'numeric' | 'text'
  /** True for numbers that are always whole (counts, lengths). */
  readonly integer?: boolean
  /** For a JSON value: the document column and the path read in it (empty: all of it). */
  readonly json?: { readonly doc: Sql; readonly path: readonly (string | number)[] }
}

/** An error in a filter's meaning (unknown field, bad modifier…); becomes a 400. */
export class RuleError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RuleError'
  }
}

/** Collects the `LEFT JOIN`s an expression needs, each built once per key. */
export class JoinSink {
  private readonly aliases = new Map<string, string>()
  /** When set, every key asked for is added to it (which joins a comparison uses). */
  used: Set<string> | null = null

  /**
   * `clauses` may be shared with another sink: same FROM, independent keys. `conditions` are
   * what the joined rows must satisfy (the listRules of joined collections in a client filter);
   * `where` adds them.
   */
  constructor(
    private readonly state: CompileState,
    readonly clauses: Sql[] = [],
    readonly conditions: Sql[] = [],
  ) {}

  /** `expr` and the scope's conditions. */
  where(expr: Sql): Sql {
    return this.conditions.length === 0
      ? expr
      : sql`(${expr}) AND ${join(this.conditions, ' AND ')}`
  }

  /** Adds the join `make(alias)` under `key` unless it is already there; returns its alias. */
  join(key: string, prefix: string, make: (alias: string) => Sql): string {
    this.used?.add(key)
    const known = this.aliases.get(key)
    if (known !== undefined) return known
    const alias = this.state.nextAlias(prefix)
    this.aliases.set(key, alias)
    this.clauses.push(make(alias))
    return alias
  }

  /** Makes `key` resolve to `alias`, a source the caller puts in the FROM clause itself. */
  preset(key: string, alias: string): void {
    this.aliases.set(key, alias)
  }

  /** `FROM (SELECT 1) AS seed LEFT JOIN …`: one row even when every join misses. */
  from(): Sql {
    const seed = sql`(SELECT 1) AS ${ident(this.state.nextAlias('s'))}`
    return this.clauses.length === 0 ? seed : sql`${seed} ${join(this.clauses, ' ')}`
  }
}

/** The state of one compilation; nested compilations (listRules of joins) share the counter. */
export interface CompileState {
  readonly ctx: RuleContext
  readonly now: Date
  /** The join scope of the whole filter: its rows are what `?`-operators range over. */
  readonly sink: JoinSink
  /** The junction rewrite's pass over the top-level filter (`junction.ts`); none when nested. */
  readonly junctions?: JunctionPlan
  nextAlias(prefix: string): string
  /** Compiles a filter tree against this state (used by `:changed` and joined listRules). */
  compileNode(node: FilterNode): Sql
  /** Wraps a compiled expression in `EXISTS (… joins …)` when its join scope is not empty. */
  finish(expr: Sql): Sql
  /** A state for another collection at `alias`, trusted (a rule), sharing the alias counter. */
  nested(collection: Collection, alias: string): CompileState
}

/**
 * The junction rewrite of a compilation: `record` notes which joins each comparison uses,
 * `apply` compiles the comparisons found eligible as semi-joins on their junction tables.
 */
export type JunctionPlan =
  | {
      readonly mode: 'record'
      /** Per comparison: the field it may read from a junction, or null when it may not. */
      readonly comparisons: Map<ComparisonNode, { field: Field; keys: Set<string> } | null>
      /** How many comparisons use each join key. */
      readonly uses: Map<string, number>
    }
  | { readonly mode: 'apply'; readonly eligible: ReadonlyMap<ComparisonNode, Field> }

/** Whether a field of this type holds a list (`maxSelect` > 1). */
export function isMultiField(field: { type: string; options: Record<string, unknown> }): boolean {
  if (field.type !== 'select' && field.type !== 'relation' && field.type !== 'file') return false
  return Number(field.options.maxSelect ?? 0) > 1
}

/**
 * Whether a field stores a JSON document whose sub-paths can be read (`data.a.b`). Vectors are
 * float32 BLOBs, not JSON: a filter can test them for `null` only.
 */
export function isJsonField(field: { type: string }): boolean {
  return field.type === 'json' || field.type === 'geoPoint'
}

/** The value class of a field's column. */
export function fieldValueType(field: {
  type: string
  options: Record<string, unknown>
}): ValueType {
  if (field.type === 'number') return 'number'
  if (field.type === 'bool') return 'bool'
  if (isJsonField(field)) return 'json'
  return 'text'
}
