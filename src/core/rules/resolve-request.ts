/**
 * Resolves `@request.*`: values of the current request bound as parameters (missing keys are
 * NULL), plus joins for `@request.auth.<relation>.…` and `@request.body.<relation>.…`.
 */
import { comparisonNode, identifierNode, logicalNode } from '../../tools/filter/index.js'
import { param } from '../../store/sql.js'
import {
  RuleError,
  isMultiField,
  type CompileState,
  type JoinSink,
  type Operand,
} from './context.js'
import { bindable, constant, lowerConstant } from './constants.js'
import { joinAuth, joinEach, joinIds, relationTarget } from './joins.js'
import { resolveFieldPath, type Modifier } from './resolve-field.js'

interface Lookup {
  found: boolean
  value: unknown
}

/** Follows `path` through plain objects and arrays (digit keys index arrays). */
function navigate(root: unknown, path: readonly string[]): Lookup {
  let value = root
  for (const key of path) {
    if (Array.isArray(value) && /^[0-9]+$/.test(key) && Number(key) < value.length) {
      value = value[Number(key)]
    } else if (isRecord(value) && Object.hasOwn(value, key)) {
      value = value[key]
    } else {
      return { found: false, value: null }
    }
  }
  return { found: true, value }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `segments` follow `@request.`; `name` is the whole identifier, for messages. */
export function resolveRequest(
  state: CompileState,
  sink: JoinSink,
  segments: readonly string[],
  modifier: Modifier | null,
  name: string,
): Operand {
  const req = state.ctx.request
  const [top, ...rest] = segments
  switch (top) {
    case 'context':
    case 'method':
      if (rest.length > 0) break
      return staticValue(state, sink, name, { found: req !== null, value: req?.[top] }, modifier)
    case 'headers':
    case 'query':
      if (rest.length === 0) break
      return staticValue(state, sink, name, navigate(req?.[top] ?? {}, rest), modifier)
    case 'body':
    case 'data': // NB: v0.22 spelling of `body`
      if (rest.length === 0) break
      return resolveBody(state, sink, rest, modifier, name)
    case 'auth':
      if (rest.length === 0) break
      return resolveAuth(state, sink, rest, modifier, name)
  }
  throw new RuleError(`unknown field "${name}"`)
}

function resolveBody(
  state: CompileState,
  sink: JoinSink,
  rest: readonly string[],
  modifier: Modifier | null,
  name: string,
): Operand {
  const { collection } = state.ctx
  const body = state.ctx.request?.body ?? {}
  const field = collection.fields.find((f) => f.name === rest[0])
  if (modifier === 'changed') {
    if (!field || rest.length > 1) {
      throw new RuleError(`the :changed modifier needs a field of "${collection.name}" ("${name}")`)
    }
    const submitted = name.slice(0, name.lastIndexOf(':'))
    const changed = logicalNode('and', [
      comparisonNode(identifierNode(`${submitted}:isset`, 0), '=', identifierNode('true', 0), 0),
      comparisonNode(identifierNode(submitted, 0), '!=', identifierNode(field.name, 0), 0),
    ])
    return { sql: state.compileNode(changed), type: 'bool' }
  }
  if (field?.type === 'relation' && rest.length > 1) {
    const ids = navigate(body, [field.name]).value
    const multi = isMultiField(field)
    const list = Array.isArray(ids) ? ids : ids === null || ids === undefined ? [] : [ids]
    const source = multi ? param(JSON.stringify(list)) : param(bindable(list[list.length - 1]))
    const target = relationTarget(state, field)
    const base = joinIds(state, sink, `@request.body.${field.name}`, target, source, multi)
    return resolveFieldPath(state, sink, base, rest.slice(1), modifier, name)
  }
  const found = navigate(body, rest)
  // NB: multipart bodies carry numbers and booleans as text; cast them for such fields.
  if (field && rest.length === 1 && typeof found.value === 'string') {
    const text = found.value.trim()
    if (field.type === 'number' && text !== '' && Number.isFinite(Number(text))) {
      found.value = Number(text)
    } else if (field.type === 'bool' && /^(true|false|1|0|t|f)$/i.test(text)) {
      found.value = /^(true|1|t)$/i.test(text)
    }
  }
  return staticValue(state, sink, name, found, modifier)
}

function resolveAuth(
  state: CompileState,
  sink: JoinSink,
  rest: readonly string[],
  modifier: Modifier | null,
  name: string,
): Operand {
  const auth = state.ctx.request?.auth ?? null
  if (!auth) return staticValue(state, sink, name, { found: false, value: null }, modifier)
  const field = auth.collection.fields.find((f) => f.name === rest[0])
  if (field?.type === 'relation' && rest.length > 1) {
    const base = joinAuth(state, sink, auth.collection, auth.record.id)
    return resolveFieldPath(state, sink, base, rest, modifier, name)
  }
  const record = {
    ...auth.record,
    collectionId: auth.collection.id,
    collectionName: auth.collection.name,
  }
  return staticValue(state, sink, name, navigate(record, rest), modifier)
}

/** A request value with its modifier applied. */
function staticValue(
  state: CompileState,
  sink: JoinSink,
  name: string,
  { found, value }: Lookup,
  modifier: Modifier | null,
): Operand {
  const { dialect } = state.ctx
  switch (modifier) {
    case null:
      return constant(value)
    case 'isset':
      return constant(found)
    case 'lower':
      return lowerConstant(value, dialect)
    case 'length':
      if (Array.isArray(value)) return constant(value.length)
      return constant(value === null || value === undefined ? null : 0)
    case 'each': {
      const items = Array.isArray(value)
        ? value
        : value === null || value === undefined
          ? []
          : [value]
      const key = name.slice(0, name.lastIndexOf(':'))
      const item = joinEach(state, sink, key, param(JSON.stringify(items)))
      return { sql: item, type: 'any', multi: true }
    }
    case 'changed':
      throw new RuleError(`the :changed modifier applies only to @request.body fields ("${name}")`)
  }
}
