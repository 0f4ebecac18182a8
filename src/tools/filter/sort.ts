/** The sort-list parser: `-created,+title,@random` → `SortItem[]`. */
import { sortItem, type SortItem } from './ast.js'
import { FilterSyntaxError, quote } from './errors.js'
import { isIdentifier } from './lexer.js'

/** The most sort items one sort list may hold. */
export const MAX_SORT_FIELDS = 8
/** The longest single sort field, in characters. */
export const MAX_SORT_FIELD_LENGTH = 255

/**
 * Parses a comma-separated sort list: a `-` prefix sorts descending, `+` or none ascending. A
 * blank list gives `[]`. Throws `FilterSyntaxError` for more than 8 items, an item longer than
 * 255 characters, an empty item or one that is not an identifier.
 */
export function parseSort(text: string): SortItem[] {
  if (text.trim() === '') return []
  // NB: bound the work before splitting hostile input.
  if (text.length > MAX_SORT_FIELDS * (MAX_SORT_FIELD_LENGTH + 3)) {
    throw new FilterSyntaxError('invalid_sort', `sort is too long (${text.length} characters)`)
  }
  const parts = text.split(',')
  if (parts.length > MAX_SORT_FIELDS) {
    throw new FilterSyntaxError(
      'invalid_sort',
      `too many sort fields (${parts.length}, max ${MAX_SORT_FIELDS})`,
    )
  }
  let offset = 0
  return parts.map((part) => {
    const position = offset + (part.length - part.trimStart().length)
    offset += part.length + 1
    let field = part.trim()
    let direction: SortItem['direction'] = 'ASC'
    if (field.startsWith('-')) {
      direction = 'DESC'
      field = field.slice(1)
    } else if (field.startsWith('+')) {
      field = field.slice(1)
    }
    if (field === '') {
      throw new FilterSyntaxError(
        'invalid_sort',
        `empty sort field at position ${position}`,
        position,
      )
    }
    if (field.length > MAX_SORT_FIELD_LENGTH) {
      throw new FilterSyntaxError(
        'invalid_sort',
        `sort field at position ${position} is too long (max ${MAX_SORT_FIELD_LENGTH} characters)`,
        position,
      )
    }
    if (!isIdentifier(field)) {
      throw new FilterSyntaxError(
        'invalid_sort',
        `invalid sort field ${quote(field)} at position ${position}`,
        position,
      )
    }
    return sortItem(field, direction)
  })
}
