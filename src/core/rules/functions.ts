/** The filter functions of reference §9.6: `geoDistance` and `strftime`. */
import type { CallNode, OperandNode } from '../../tools/filter/index.js'
import { join, param, sql, type Sql } from '../../store/sql.js'
import { RuleError, type CompileState, type Operand } from './context.js'
import { sqliteValue } from './sqlite-values.js'

/** The most arguments `strftime` takes. */
const MAX_STRFTIME_ARGS = 10

/** Resolves one argument operand in the caller's join sink. */
type ResolveArg = (node: OperandNode) => Operand

/** What a call inherits from its arguments: multi-valued rows, column origin, guards. */
function inherit(args: readonly Operand[]): Pick<Operand, 'multi' | 'fromColumn' | 'guard'> {
  const guards = args.flatMap((a) => (a.guard ? [a.guard] : []))
  return {
    multi: args.some((a) => a.multi),
    fromColumn: args.some((a) => a.fromColumn),
    ...(guards.length > 0 ? { guard: join(guards, ' AND ') } : {}),
  }
}

/** Resolves a function call operand. */
export function resolveCall(node: CallNode, state: CompileState, resolve: ResolveArg): Operand {
  switch (node.name) {
    case 'geoDistance':
      return geoDistance(node, state, resolve)
    case 'strftime':
      return strftime(node, state, resolve)
    default:
      throw new RuleError(`unknown function "${node.name}"`)
  }
}

/** Haversine distance in km between (lonA, latA) and (lonB, latB). */
function geoDistance(node: CallNode, state: CompileState, resolve: ResolveArg): Operand {
  if (node.args.length !== 4) {
    throw new RuleError(
      `geoDistance needs 4 arguments (lonA, latA, lonB, latB), got ${node.args.length}`,
    )
  }
  const args = node.args.map((a) => {
    if (a.kind !== 'number' && a.kind !== 'identifier') {
      throw new RuleError('geoDistance arguments must be numbers or fields')
    }
    return resolve(a)
  })
  const { dialect } = state.ctx
  const [lonA, latA, lonB, latB] = args.map((a) => dialect.castNumber(sqliteValue(a))) as [
    Sql,
    Sql,
    Sql,
    Sql,
  ]
  const halfChord = sql`POWER(SIN(RADIANS(${latB} - ${latA}) / 2), 2) + COS(RADIANS(${latA})) * COS(RADIANS(${latB})) * POWER(SIN(RADIANS(${lonB} - ${lonA}) / 2), 2)`
  return {
    ...inherit(args),
    // NB: NULL (as on SQLite) when rounding puts the half chord out of ASIN's or SQRT's domain.
    sql: sql`(12742 * ${dialect.math('ASIN', dialect.math('SQRT', halfChord))})`,
    type: 'number',
    noCoalesce: true,
  }
}

/** `strftime(format[, time[, modifier…]])`, NULL normalised to `''`. */
function strftime(node: CallNode, state: CompileState, resolve: ResolveArg): Operand {
  const [format, time, ...mods] = node.args
  if (!format || node.args.length > MAX_STRFTIME_ARGS) {
    throw new RuleError(
      `strftime takes 1 to ${MAX_STRFTIME_ARGS} arguments, got ${node.args.length}`,
    )
  }
  if (format.kind !== 'text') throw new RuleError('the strftime format must be a text literal')
  if (time?.kind === 'call')
    throw new RuleError('the strftime time value must be a text, number or field')
  const value = time ? resolve(time) : undefined
  const modifiers = mods.map((m) => {
    if (m.kind !== 'text') throw new RuleError('strftime modifiers must be text literals')
    return param(m.value)
  })
  let expr: Sql
  try {
    expr = state.ctx.dialect.strftime(param(format.value), value?.sql ?? param('now'), modifiers)
  } catch (e) {
    throw new RuleError(e instanceof Error ? e.message : 'strftime is not supported')
  }
  return { ...inherit(value ? [value] : []), sql: sql`COALESCE(${expr}, '')`, type: 'text' }
}
