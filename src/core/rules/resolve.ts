/** Resolves any operand node: literals, macros, field paths, `@request.*`, `@collection.*`, calls. */
import type { OperandNode } from '../../tools/filter/index.js'
import { forbidden, messages } from '../errors.js'
import { RuleError, type CompileState, type JoinSink, type Operand } from './context.js'
import { constant } from './constants.js'
import { resolveCall } from './functions.js'
import { joinCollection } from './joins.js'
import { macroValue } from './macros.js'
import { resolveFieldPath, splitPath } from './resolve-field.js'
import { resolveRequest } from './resolve-request.js'

const keywords: Readonly<Record<string, boolean | null>> = { null: null, true: true, false: false }

/**
 * Resolves `node` into `sink`. A multi-valued result carries `rebuild`, which resolves the same
 * node again into another sink (with fresh aliases) for "every item" checks.
 */
export function resolveOperand(node: OperandNode, state: CompileState, sink: JoinSink): Operand {
  const op = resolveNode(node, state, sink)
  return op.multi ? { ...op, rebuild: (other) => resolveOperand(node, state, other) } : op
}

function resolveNode(node: OperandNode, state: CompileState, sink: JoinSink): Operand {
  switch (node.kind) {
    case 'number':
    case 'text':
      return constant(node.value)
    case 'call':
      return resolveCall(node, state, (arg) => resolveOperand(arg, state, sink))
    case 'identifier':
      return resolveIdentifier(node.name, state, sink)
  }
}

function resolveIdentifier(name: string, state: CompileState, sink: JoinSink): Operand {
  const { ctx } = state
  if (name.startsWith('@request.')) {
    if (ctx.restricted) throw forbidden(messages.filterByRequestForbidden)
    const { segments, modifier } = splitPath(name)
    return resolveRequest(state, sink, segments.slice(1), modifier, name)
  }
  if (name.startsWith('@collection.')) {
    if (ctx.restricted) throw forbidden(messages.filterByCollectionForbidden)
    return resolveCollection(name, state, sink)
  }
  if (name.startsWith('@')) {
    const value = macroValue(name, state.now)
    if (value === undefined) throw new RuleError(`unknown macro "${name}"`)
    return constant(value)
  }
  if (Object.hasOwn(keywords, name) && !ctx.collection.fields.some((f) => f.name === name)) {
    return constant(keywords[name])
  }
  const { segments, modifier } = splitPath(name)
  const base = { collection: ctx.collection, alias: ctx.alias, multi: false, key: '' }
  return resolveFieldPath(state, sink, base, segments, modifier, name)
}

/** `@collection.<nameOrId>[:alias].<path>`: every row of another collection. */
function resolveCollection(name: string, state: CompileState, sink: JoinSink): Operand {
  const [, target = '', ...rest] = name.split('.')
  const [collection = '', tag = '', extra] = target.split(':')
  if (collection === '' || extra !== undefined || rest.length === 0) {
    throw new RuleError(`invalid field path "${name}", expected @collection.<name>[:alias].<field>`)
  }
  const { segments, modifier } = splitPath(rest.join('.'))
  const base = joinCollection(state, sink, collection, tag)
  return resolveFieldPath(state, sink, base, segments, modifier, name)
}
