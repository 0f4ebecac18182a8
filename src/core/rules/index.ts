/**
 * Rules and client filters: the filter AST resolved against collection schemas and the request,
 * compiled to parameterised SQL through a `Dialect` (ARCHITECTURE invariant 3).
 */
export { compileFilter, compileSort, compileSortScoped, validateRule } from './compile.js'
export { RuleError, type RuleContext } from './context.js'
export { escapeLike, goNumberText } from './compare.js'
export { macroValue } from './macros.js'
