/**
 * A dialect-neutral SQL fragment: constant text, bound parameters and identifiers kept apart
 * until a `Dialect` compiles them. No user value ever becomes SQL text through this module.
 */

/** One piece of a fragment: trusted text, a bound value, or an identifier to quote. */
export type SqlPart = { text: string } | { param: unknown } | { ident: string }

/** An immutable SQL fragment; build it with the `sql` tag and the helpers below. */
export class Sql {
  constructor(readonly parts: readonly SqlPart[]) {}

  /** True when the fragment holds no parts at all. */
  get isEmpty(): boolean {
    return this.parts.length === 0
  }
}

/** Anything the `sql` tag accepts as an interpolation: a fragment, or a value to bind. */
export type SqlValue = unknown

/**
 * Builds a fragment: template text is trusted, interpolated `Sql` fragments are inlined, and any
 * other interpolated value becomes a bound parameter.
 */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): Sql {
  const parts: SqlPart[] = []
  for (let i = 0; i < strings.length; i++) {
    const s = strings[i]!
    if (s !== '') parts.push({ text: s })
    if (i < values.length) {
      const v = values[i]
      if (v instanceof Sql) for (const p of v.parts) parts.push(p)
      else parts.push({ param: v })
    }
  }
  return new Sql(parts)
}

/** A bound parameter. */
export function param(value: unknown): Sql {
  return new Sql([{ param: value }])
}

/** An identifier (table, column, alias); the dialect quotes it. Dots are not split. */
export function ident(name: string): Sql {
  return new Sql([{ ident: name }])
}

/** A qualified column `table.column`, each part quoted. */
export function column(table: string, name: string): Sql {
  return new Sql([{ ident: table }, { text: '.' }, { ident: name }])
}

/** Trusted constant SQL text. Never pass anything derived from input. */
export function raw(text: string): Sql {
  return new Sql([{ text }])
}

/** Joins fragments with a constant separator. */
export function join(items: readonly Sql[], separator = ', '): Sql {
  const parts: SqlPart[] = []
  const sep = { text: separator }
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(sep)
    for (const p of items[i]!.parts) parts.push(p)
  }
  return new Sql(parts)
}

/** The result of compiling a fragment for one dialect. */
export interface CompiledQuery {
  readonly sql: string
  readonly params: unknown[]
}

/**
 * Quotes an identifier ANSI-style: wrapped in double quotes, embedded quotes doubled. Throws on
 * an empty name or a NUL character, which no engine accepts in an identifier.
 */
export function quoteDoubled(name: string): string {
  let quoted = quotedNames.get(name)
  if (quoted !== undefined) return quoted
  if (name === '' || name.includes('\0')) {
    throw new Error(`invalid SQL identifier ${JSON.stringify(name)}`)
  }
  quoted = `"${name.replaceAll('"', '""')}"`
  if (quotedNames.size >= 10_000) quotedNames.clear()
  quotedNames.set(name, quoted)
  return quoted
}

/** Identifiers repeat (tables, columns, aliases): their quoted forms are kept. */
const quotedNames = new Map<string, string>()

/**
 * Compiles a fragment with one dialect's conventions: text is copied, identifiers go through
 * `quoteIdent`, and each parameter becomes `placeholder(n)` (1-based) with `convert` applied.
 */
export function compileFragment(
  fragment: Sql,
  placeholder: (n: number) => string,
  quoteIdent: (name: string) => string,
  convert: (value: unknown) => unknown,
): CompiledQuery {
  let text = ''
  const params: unknown[] = []
  for (const part of fragment.parts) {
    if ('text' in part) text += part.text
    else if ('ident' in part) text += quoteIdent(part.ident)
    else {
      params.push(convert(part.param))
      text += placeholder(params.length)
    }
  }
  return { sql: text, params }
}
