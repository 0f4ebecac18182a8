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
  strings.forEach((s, i) => {
    if (s !== '') parts.push({ text: s })
    if (i < values.length) {
      const v = values[i]
      if (v instanceof Sql) parts.push(...v.parts)
      else parts.push({ param: v })
    }
  })
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
  items.forEach((item, i) => {
    if (i > 0) parts.push({ text: separator })
    parts.push(...item.parts)
  })
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
  if (name === '' || name.includes('\0')) {
    throw new Error(`invalid SQL identifier ${JSON.stringify(name)}`)
  }
  return `"${name.replaceAll('"', '""')}"`
}

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
