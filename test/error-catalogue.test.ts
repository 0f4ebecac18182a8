/**
 * The error catalogue against its docs and the source (Fastify's `errors.test.js` habit): every
 * entry is documented and used, and no code or message is written outside the catalogue.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  codeOf,
  messages as coreMessages,
  validationMessages,
  type ApiMessage,
  type Entry,
} from '../src/core/errors/catalogue.js'
import { webhooksMessages } from '../src/features/webhooks/messages.js'
import { builtInFeatures } from '../src/features/index.js'

/** The top-level messages: core's and every built-in feature's own table, by key. */
const featureTables = builtInFeatures().flatMap((f) =>
  f.messages ? [[f.name, f.messages] as const] : [],
)
const messages: Record<string, Entry> = Object.assign(
  {},
  coreMessages,
  ...featureTables.map(([, table]) => table),
)

const root = process.cwd()

/** An entry's text with every named argument shown as `{name}`, as the docs list it. */
function render(entry: Entry): string {
  if (typeof entry === 'string') return entry
  const named = new Proxy({}, { get: (_t, k) => `{${String(k)}}` })
  return (entry as (args: unknown) => string)(named)
}

/** The rows of the table under `heading` in a Markdown page, cells trimmed, code spans unwrapped. */
function tableRows(page: string, heading: string): string[][] {
  const start = page.indexOf(`\n${heading}\n`)
  if (start < 0) return []
  const rest = page.slice(start + heading.length + 2)
  const end = rest.search(/\n#{1,6} /)
  const rows = (end < 0 ? rest : rest.slice(0, end))
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim().replace(/^`(.*)`$/, '$1')),
    )
  return rows.slice(2)
}

/** The docs' text of an entry: line breaks shown as `\n`. */
const docText = (entry: Entry) => render(entry).replace(/\n/g, '\\n')

/** The TypeScript sources of src/ outside the catalogue (features' tables too), tests left out. */
function sources(): { file: string; text: string }[] {
  return (readdirSync(join(root, 'src'), { recursive: true }) as string[])
    .map((f) => `src/${f.split('\\').join('/')}`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .filter(
      (f) => !f.startsWith('src/core/errors/') && !/^src\/features\/[^/]+\/messages\.ts$/.test(f),
    )
    .map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }))
}

const factories = new Set(['badRequest', 'forbidden', 'notFound', 'unauthorized', 'tooLarge'])

/**
 * Calls in `text` that write a code or message inline: a factory or `new ApiError` with a string
 * or template literal message, and any `fieldError(…)` (built-ins name a catalogue key).
 */
function inlineErrors(file: string, text: string): string[] {
  const found: string[] = []
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const isText = (n: ts.Node | undefined) =>
    n !== undefined && (ts.isStringLiteralLike(n) || ts.isTemplateExpression(n))
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
      const name = n.expression.text
      if ((factories.has(name) && isText(n.arguments[0])) || name === 'fieldError')
        found.push(`${file}: ${n.getText()}`)
    }
    if (ts.isNewExpression(n) && n.expression.getText() === 'ApiError' && isText(n.arguments?.[1]))
      found.push(`${file}: ${n.getText()}`)
    ts.forEachChild(n, visit)
  }
  visit(source)
  return found
}

/** The string literals of `text` (comments left out). */
function literals(file: string, text: string): string[] {
  const out: string[] = []
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteralLike(n)) out.push(n.text)
    ts.forEachChild(n, visit)
  }
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true))
  return out
}

describe('error catalogue, docs and source', () => {
  const page = readFileSync(join(root, 'docs/errors-and-limits.md'), 'utf8')
  const fieldRows = tableRows(page, '### Field error codes')
  const messageRows = tableRows(page, '### Messages')
  const src = sources()

  it('is documented in docs/errors-and-limits.md, entry for entry', () => {
    const documented = new Set(fieldRows.map(([code, message]) => `${code} ${message}`))
    const entries = Object.entries(validationMessages).map(
      ([key, e]) => `${codeOf(key as never)} ${docText(e)}`,
    )
    expect(entries.filter((e) => !documented.has(e))).toEqual([])
    expect([...documented].filter((d) => !entries.includes(d))).toEqual([])
    const texts = Object.values(messages).map(docText)
    const listed = messageRows.map(([message]) => message!)
    expect(texts.filter((t) => !listed.includes(t))).toEqual([])
    expect(listed.filter((t) => !texts.includes(t))).toEqual([])
    expect(fieldRows.every((row) => row.length === 3 && row[2] !== '')).toBe(true)
    expect(messageRows.every((row) => row.length === 2 && row[1] !== '')).toBe(true)
  })

  it('has no dead entry: each is used somewhere in src/', () => {
    const all = src.map((s) => s.text).join('\n')
    const unusedCodes = Object.keys(validationMessages).filter((k) => !all.includes(`'${k}'`))
    // NB: core's as `messages.key`, a feature's as `<table>.key` (e.g. `webhooksMessages.key`).
    const unusedMessages = Object.keys(messages).filter(
      (k) => !new RegExp(`\\b\\w*[mM]essages\\.${k}\\b`).test(all),
    )
    expect([...unusedCodes, ...unusedMessages]).toEqual([])
  })

  it('leaves no code or message written inline in src/', () => {
    const found = src
      .filter((s) => s.file !== 'src/core/errors.ts')
      .flatMap((s) => inlineErrors(s.file, s.text))
    expect(found).toEqual([])
    // The check itself finds what it must.
    const sample = [
      "throw badRequest('Nope.')",
      'throw notFound(`No ${what}.`)',
      "new ApiError(429, 'Slow down.')",
      "fieldError('validation_x', 'X.')",
      'throw badRequest(messages.batchFailed, {}, err)',
      'new ApiError(501, messages.notBuilt({ feature }))',
    ].join('\n')
    expect(inlineErrors('sample.ts', sample)).toHaveLength(4)
  })

  it('keeps every fixed text in the catalogue: none is repeated as a literal in src/', () => {
    const entries: Entry[] = [...Object.values(validationMessages), ...Object.values(messages)]
    const fixed = new Set(entries.filter((e): e is string => typeof e === 'string'))
    const repeated = src.flatMap(({ file, text }) =>
      literals(file, text)
        .filter((l) => fixed.has(l))
        .map((l) => `${file}: ${l}`),
    )
    expect(repeated).toEqual([])
  })
  it("keeps each feature's messages in its own folder, none in core, none twice", () => {
    expect(featureTables.map(([name]) => name).sort()).toEqual([
      'audit',
      'backups',
      'mcp',
      'payments',
      'push',
      'storage',
      'teams',
      'utils',
      'webhooks',
    ])
    const keys = [coreMessages, ...featureTables.map(([, t]) => t)].flatMap((t) => Object.keys(t))
    expect(keys.length).toBe(new Set(keys).size)
    const inCore = readdirSync(join(root, 'src/core/errors')).filter((f) =>
      featureTables.some(([name]) => f === `messages-${name}.ts`),
    )
    expect(inCore).toEqual([])
    // A feature's texts are API messages by declaration merging.
    expectTypeOf(webhooksMessages.webhookOutboxReadOnly).toExtend<ApiMessage>()
    expectTypeOf<'No such message.'>().not.toExtend<ApiMessage>()
  })
})
