/**
 * Filter, sort and rule compilation: text → cached AST → one parameterised boolean expression
 * (or ORDER BY items) over the collection's alias in the outer query.
 */
import {
  FilterSyntaxError,
  identifierNode,
  parseSort,
  visitFilter,
  type FilterNode,
  type SortItem,
} from '../../tools/filter/index.js'
import type { Dialect } from '../../store/dialect.js'
import { join, raw, sql, type Sql } from '../../store/sql.js'
import type { Collection } from '../collections/model.js'
import { badRequest, forbidden, messages } from '../errors.js'
import { parseCached } from './ast-cache.js'
import { compileComparison } from './compare.js'
import {
  JoinSink,
  RuleError,
  type CompileState,
  type JunctionPlan,
  type RuleContext,
} from './context.js'
import { applyPlan, recordingPlan } from './junction.js'
import { resolveOperand } from './resolve.js'
import { sqliteValue } from './sqlite-values.js'

class State implements CompileState {
  readonly sink: JoinSink = new JoinSink(this)

  constructor(
    readonly ctx: RuleContext,
    readonly now: Date = ctx.now ?? new Date(),
    private readonly counter = { n: 0 },
    readonly junctions?: JunctionPlan,
  ) {}

  nextAlias(prefix: string): string {
    return `_${prefix}${++this.counter.n}`
  }

  compileNode(node: FilterNode): Sql {
    return visitFilter(node, {
      comparison: (n) => compileComparison(n, this),
      and: (terms) => sql`(${join(terms, ' AND ')})`,
      or: (terms) => sql`(${join(terms, ' OR ')})`,
    })
  }

  finish(expr: Sql): Sql {
    if (this.sink.clauses.length === 0) return expr
    return sql`EXISTS (SELECT 1 FROM ${this.sink.from()} WHERE ${this.sink.where(expr)})`
  }

  nested(collection: Collection, alias: string): CompileState {
    return new State({ ...this.ctx, collection, alias, restricted: false }, this.now, this.counter)
  }
}

/** What only superusers may name in a client filter or sort, in the order PocketBase checks. */
const superuserOnlyFields = [
  ['@collection.', messages.filterByCollectionForbidden],
  ['@request.', messages.filterByRequestForbidden],
] as const

/**
 * NB: like PocketBase, a loose check of the raw text before parsing, so a literal such as
 * `'@request.x'` or a malformed filter naming `@collection.` is refused too.
 */
function assertClientText(text: string, ctx: RuleContext): void {
  if (!ctx.restricted) return
  for (const [field, message] of superuserOnlyFields) {
    if (text.includes(field)) throw forbidden(message)
  }
}

/** Runs `fn`, turning syntax and resolution errors into a 400 with a precise message. */
function reported<T>(what: 'filter' | 'sort', fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof FilterSyntaxError || e instanceof RuleError) {
      const reason = e.message
      const message =
        what === 'filter' ? messages.invalidFilter({ reason }) : messages.invalidSort({ reason })
      throw badRequest(message, {}, e)
    }
    throw e
  }
}

/**
 * Compiles a filter or rule into one boolean SQL expression over `ctx.alias`, to be used as
 * `SELECT … FROM "<table>" AS <alias> WHERE <expr>`. Relations, back-relations, `:each` and
 * `@collection` become correlated subqueries; every user value is a bound parameter. Throws
 * ApiError 400 (`Invalid filter: …`) on bad input, 403 when `ctx.restricted` and the text
 * names `@collection.` or `@request.` anywhere (literals included, as PocketBase does).
 */
export function compileFilter(text: string, ctx: RuleContext): Sql {
  assertClientText(text, ctx)
  const compile = () =>
    reported('filter', () => {
      const node = parseCached(text)
      const plan = recordingPlan(ctx.collection, ctx.tableRows === true)
      const state = new State(ctx, undefined, undefined, plan ?? undefined)
      const plain = state.finish(state.compileNode(node))
      const apply = plan && applyPlan(plan)
      if (!apply) return plain
      // NB: the same instant as the first pass, so macros read the same time.
      const rewritten = new State(ctx, state.now, undefined, apply)
      return rewritten.finish(rewritten.compileNode(node))
    })
  const key = cacheKey(text, text, ctx)
  if (key !== null) return cached(compiledFilters, key, compile)
  // Rules reading only `@request.auth.<field>` besides the record's own fields (the common
  // `owner = @request.auth.id`) are cached per auth record: the verified-token cache hands the
  // same record object to every request of a token until any auth record changes.
  const request = ctx.request
  const authKey = request ? cacheKey(text, text.replace(AUTH_FIELD, ''), ctx) : null
  if (request === null || authKey === null) return compile()
  const owner = request.auth?.record ?? GUEST
  let perAuth = compiledForAuth.get(owner)
  if (!perAuth) {
    perAuth = new Map()
    compiledForAuth.set(owner, perAuth)
  }
  const authCollection = request.auth?.collection
  return cached(
    perAuth,
    `${authCollection?.id}\u0000${authCollection?.updated}\u0000${authKey}`,
    compile,
  )
}

/** `@request.auth.<field>` without a further path. */
const AUTH_FIELD = /@request\.auth\.[A-Za-z_]\w*(?![\w.])/g
/** The owner of the guest's cached rules. */
const GUEST = {}
const compiledForAuth = new WeakMap<object, Map<string, Sql>>()

const COMPILED_CAPACITY = 1000
/** Compiled filters and sorts that depend only on their collection's own schema (`cacheKey`). */
const compiledFilters = new Map<string, Sql>()
const compiledSorts = new Map<string, { order: Sql[]; where: Sql | null }>()

function cached<T>(cache: Map<string, T>, key: string | null, compile: () => T): T {
  const hit = key === null ? undefined : cache.get(key)
  if (hit) return hit
  const out = compile()
  if (key !== null) {
    if (cache.size >= COMPILED_CAPACITY) cache.delete(cache.keys().next().value!)
    cache.set(key, out)
  }
  return out
}

/**
 * The cache key of a filter or sort whose SQL depends on nothing but the text and the
 * collection's own schema: `probe` (the text, less what is known to be static) has no `@`
 * (request values, macros, `@collection`), no `.` (relations, whose joined listRules may read
 * the request) and no back-relations. Others are compiled per request, since their
 * `@request.*` values are bound into the SQL. Null when not cacheable.
 */
function cacheKey(text: string, probe: string, ctx: RuleContext): string | null {
  if (text.length > 500 || /[@.]|_via_/.test(probe) || ctx.now) return null
  const c = ctx.collection
  return `${ctx.dialect.name}\u0000${c.id}\u0000${c.updated}\u0000${ctx.alias}\u0000${ctx.restricted}\u0000${ctx.tableRows === true}\u0000${text}`
}

/**
 * Compiles a sort list into ORDER BY items (expression plus `ASC`/`DESC`). Fields resolve like
 * filter paths; a joined value is read by a scalar subquery (MIN/MAX of multi-valued ones).
 * `@random` and `@rowid` are the special keys. Throws ApiError 400 (`Invalid sort: …`) / 403.
 */
export function compileSort(text: string, ctx: RuleContext): Sql[] {
  return compileSortScoped(text, ctx).order
}

/**
 * {@link compileSort}, with the condition the sort puts on the rows (`where`, null for none):
 * as in PocketBase, sorting a non-superuser's list by a relation path (`author.name`) drops the
 * records whose related record the requester cannot list (the joined listRules).
 */
export function compileSortScoped(
  text: string,
  ctx: RuleContext,
): { order: Sql[]; where: Sql | null } {
  assertClientText(text, ctx)
  const probe = text.replace(/@(?:random|rowid)\b/g, '')
  return cached(compiledSorts, cacheKey(text, probe, ctx), () =>
    reported('sort', () => {
      const state = new State(ctx)
      const scopes: Sql[] = []
      const order = parseSort(text).map((item) => sortExpression(item, state, scopes))
      return { order, where: scopes.length === 0 ? null : join(scopes, ' AND ') }
    }),
  )
}

function sortExpression(item: SortItem, state: State, scopes: Sql[]): Sql {
  const { dialect, collection, alias } = state.ctx
  const direction = dialect.sortDirection(item.direction === 'DESC')
  if (item.field === '@random') return sql`${dialect.random()} ${direction}`
  if (item.field === '@rowid') {
    const rowid = collection.type === 'view' ? null : dialect.rowid(alias)
    if (!rowid) throw new RuleError('@rowid is not available for this collection')
    return sql`${rowid} ${direction}`
  }
  const sink = new JoinSink(state)
  const op = resolveOperand(identifierNode(item.field, 0), state, sink)
  if (!op.fromColumn) throw new RuleError(`cannot sort by "${item.field}", it is not a field`)
  // NB: a guarded value (an e-mail its owner hides) matches no filter, so it sorts as NULL:
  // ordering by the real value would leak it to anyone able to insert rows next to it.
  const guarded = op.guard ? sql`CASE WHEN ${op.guard} THEN ${op.sql} END` : op.sql
  if (sink.clauses.length === 0) {
    // NB: a JSON value orders as SQLite orders it (NULL, numbers, then text) on every engine.
    if (!op.json || op.guard) return sql`${guarded} ${direction}`
    return join(dialect.sortKeys(sqliteValue(op)).map((key) => sql`${key} ${direction}`))
  }
  const scoped = sink.conditions.length > 0
  if (scoped)
    scopes.push(sql`EXISTS (SELECT 1 FROM ${sink.from()} WHERE ${sink.where(raw('1 = 1'))})`)
  const where = scoped ? sql` WHERE ${sink.where(raw('1 = 1'))}` : raw('')
  if (op.json && !op.multi && !op.guard) {
    // NB: a related record's JSON value, in SQLite's order too (one subquery per key).
    const keys = dialect.sortKeys(sqliteValue(op))
    return join(keys.map((key) => sql`(SELECT ${key} FROM ${sink.from()}${where}) ${direction}`))
  }
  const value = op.multi
    ? sql`${raw(item.direction === 'ASC' ? 'MIN' : 'MAX')}(${guarded})`
    : guarded
  return sql`(SELECT ${value} FROM ${sink.from()}${where}) ${direction}`
}

/**
 * Checks a rule when a collection is saved: syntax, fields, relations and modifiers, with no
 * request (`@request.*` values read as NULL). Returns the reason it is invalid (no trailing
 * period, e.g. `unknown field "foo"`) or `null` when it is valid or empty. `dialect` is the
 * one of the collection's database: a rule may use what one engine cannot compile (`strftime`
 * codes PostgreSQL lacks).
 */
export function validateRule(
  text: string,
  collection: Collection,
  findCollection: (idOrName: string) => Collection | undefined,
  dialect: Dialect,
): string | null {
  if (text.trim() === '') return null
  const ctx: RuleContext = {
    dialect,
    collection,
    alias: collection.name,
    findCollection,
    request: null,
    restricted: false,
  }
  try {
    const state = new State(ctx)
    state.finish(state.compileNode(parseCached(text)))
    return null
  } catch (e) {
    if (e instanceof FilterSyntaxError || e instanceof RuleError) return e.message
    throw e
  }
}
