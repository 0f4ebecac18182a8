/** Stable codes of filter and sort syntax errors. */
export type FilterErrorCode =
  | 'empty'
  | 'too_long'
  | 'too_many_expressions'
  | 'unexpected_character'
  | 'unterminated_text'
  | 'invalid_number'
  | 'invalid_operator'
  | 'unexpected_token'
  | 'unbalanced_parentheses'
  | 'nesting_too_deep'
  | 'invalid_sort'

/**
 * A filter or sort string that does not follow the grammar. `message` says where (0-based
 * `position`, when there is one) and what was expected; it never contains SQL.
 */
export class FilterSyntaxError extends Error {
  readonly code: FilterErrorCode
  readonly position: number | null

  constructor(code: FilterErrorCode, message: string, position: number | null = null) {
    super(message)
    this.name = 'FilterSyntaxError'
    this.code = code
    this.position = position
  }
}

/** Shows a piece of input in a message: quoted, and cut at 20 characters. */
export function quote(text: string): string {
  const cut = text.length > 20 ? `${text.slice(0, 20)}…` : text
  return JSON.stringify(cut)
}
