/**
 * The filter AST: frozen, readonly nodes produced by `parseFilter` and consumed by the rule
 * compiler. `&&` binds tighter than `||`, as in the SQL the filter becomes.
 */

/** The comparison operators; the `?` family means "at least one item" on multi-valued operands. */
export const comparisonOperators = [
  '=',
  '!=',
  '>',
  '>=',
  '<',
  '<=',
  '~',
  '!~',
  '?=',
  '?!=',
  '?>',
  '?>=',
  '?<',
  '?<=',
  '?~',
  '?!~',
] as const

/** One comparison operator. */
export type ComparisonOperator = (typeof comparisonOperators)[number]

/** True when `text` is one of the comparison operators. */
export function isComparisonOperator(text: string): text is ComparisonOperator {
  return (comparisonOperators as readonly string[]).includes(text)
}

/** A field path, macro or keyword such as `author.name:lower`, `@now` or `null`. */
export interface IdentifierNode {
  readonly kind: 'identifier'
  readonly name: string
  /** 0-based offset of the node in the filter text. */
  readonly position: number
}

/** A number literal (integer or decimal, optional leading `-`). */
export interface NumberNode {
  readonly kind: 'number'
  readonly value: number
  /** The literal as written. */
  readonly raw: string
  readonly position: number
}

/** A quoted text literal, with the escaped quotes already unescaped. */
export interface TextNode {
  readonly kind: 'text'
  readonly value: string
  readonly position: number
}

/** A function call such as `geoDistance(a.lon, a.lat, 1, 2)`. */
export interface CallNode {
  readonly kind: 'call'
  readonly name: string
  readonly args: readonly OperandNode[]
  readonly position: number
}

/** Anything that can stand on one side of a comparison. */
export type OperandNode = IdentifierNode | NumberNode | TextNode | CallNode

/** `<operand> <operator> <operand>`. */
export interface ComparisonNode {
  readonly kind: 'comparison'
  readonly left: OperandNode
  readonly operator: ComparisonOperator
  readonly right: OperandNode
  readonly position: number
}

/** Two or more terms joined by `&&` (`and`) or `||` (`or`). */
export interface LogicalNode {
  readonly kind: 'and' | 'or'
  readonly terms: readonly FilterNode[]
}

/** A whole filter or one of its parts. */
export type FilterNode = ComparisonNode | LogicalNode

/** Sort direction of one sort item. */
export type SortDirection = 'ASC' | 'DESC'

/** One item of a sort list: a field path (or `@random` / `@rowid`) and its direction. */
export interface SortItem {
  readonly field: string
  readonly direction: SortDirection
}

/** Builds a frozen identifier node. */
export function identifierNode(name: string, position: number): IdentifierNode {
  return Object.freeze({ kind: 'identifier', name, position })
}

/** Builds a frozen number node. */
export function numberNode(raw: string, position: number): NumberNode {
  return Object.freeze({ kind: 'number', value: Number(raw), raw, position })
}

/** Builds a frozen text node. */
export function textNode(value: string, position: number): TextNode {
  return Object.freeze({ kind: 'text', value, position })
}

/** Builds a frozen call node. */
export function callNode(name: string, args: OperandNode[], position: number): CallNode {
  return Object.freeze({ kind: 'call', name, args: Object.freeze(args), position })
}

/** Builds a frozen comparison node. */
export function comparisonNode(
  left: OperandNode,
  operator: ComparisonOperator,
  right: OperandNode,
  position: number,
): ComparisonNode {
  return Object.freeze({ kind: 'comparison', left, operator, right, position })
}

/**
 * Joins terms with one logical operator, flattening nested nodes of the same kind; a single
 * term is returned as is.
 */
export function logicalNode(kind: 'and' | 'or', terms: readonly FilterNode[]): FilterNode {
  const flat: FilterNode[] = []
  for (const t of terms) {
    if (t.kind === kind) flat.push(...t.terms)
    else flat.push(t)
  }
  if (flat.length === 1) return flat[0]!
  return Object.freeze({ kind, terms: Object.freeze(flat) })
}

/** Builds a frozen sort item. */
export function sortItem(field: string, direction: SortDirection): SortItem {
  return Object.freeze({ field, direction })
}

/** A visitor over filter nodes; `and`/`or` receive their already visited terms. */
export interface FilterVisitor<R> {
  comparison(node: ComparisonNode): R
  and(terms: R[]): R
  or(terms: R[]): R
}

/** Visits a filter tree bottom-up. Depth is bounded by the 200-expression limit. */
export function visitFilter<R>(node: FilterNode, visitor: FilterVisitor<R>): R {
  if (node.kind === 'comparison') return visitor.comparison(node)
  const terms = node.terms.map((t) => visitFilter(t, visitor))
  return node.kind === 'and' ? visitor.and(terms) : visitor.or(terms)
}
