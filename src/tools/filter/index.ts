/**
 * The PocketBase filter grammar (reference §9, after ganigeorgiev/fexpr): a lexer, a parser to
 * frozen AST nodes and a sort-list parser. Domain-free: resolving fields is the rule compiler's job.
 */
export * from './ast.js'
export { FilterSyntaxError, type FilterErrorCode } from './errors.js'
export { isIdentifier, tokenize, type Token, type TokenType } from './lexer.js'
export { MAX_CALL_DEPTH, MAX_FILTER_EXPRESSIONS, MAX_FILTER_LENGTH, parseFilter } from './parser.js'
export { MAX_SORT_FIELDS, MAX_SORT_FIELD_LENGTH, parseSort } from './sort.js'
