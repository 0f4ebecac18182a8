/**
 * Idle memory (issue 19, bench/NOTES.md section 11): ICU's data lives in the node binary, and
 * what a process reads of it stays resident for good (a time zone through `Intl` ~4 MB, a
 * collator ~2 MB, a `\p{…}` class ~1 MB, a segmenter ~1 MB). Nothing on the start or request
 * path may use it: these are the sources allowed to, each for a reason, and where.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/** What reads ICU data: `Intl`, the locale-aware string methods, Unicode property classes. */
const ICU = /\bIntl\.|\.localeCompare\(|\.toLocale\w*String\(|\\p\{|\\P\{|\.normalize\('NF/g

/** Files allowed to, with the reason: only on a first use that needs it. */
const ALLOWED: Record<string, string> = {
  'src/features/utils/avatar.ts': 'initials of an avatar; the segmenter is made on first use',
  'src/features/utils/glyphs.ts': 'initials of an avatar (accents removed)',
  'src/features/vectors/embed.ts': 'the local embedding model, on its first text',
  'src/tools/filter/lexer.ts': 'non-ASCII identifier characters only (ASCII is tested first)',
  'src/core/fields/file.ts': 'uploaded file names, on upload',
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sources(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : []
  })
}

/** The source without its comments (what a comment names is not a use). */
const code = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')

describe('ICU data', () => {
  it('is used only where a first use needs it', () => {
    const found = new Map<string, string[]>()
    for (const file of sources('src')) {
      const uses = code(readFileSync(file, 'utf8')).match(ICU)
      if (uses) found.set(file, uses)
    }
    // The check sees what it looks for.
    expect(found.get('src/features/utils/avatar.ts')).toContain('Intl.')
    const unexpected = [...found.keys()].filter((f) => !(f in ALLOWED))
    expect(unexpected, JSON.stringify(Object.fromEntries(found))).toEqual([])
  })

  it('is not read by the ASCII path of the filter lexer', () => {
    const lexer = code(readFileSync('src/tools/filter/lexer.ts', 'utf8'))
    // Unicode classes appear only in the `unicode…` patterns, used for characters from U+0080.
    for (const line of lexer.split('\n').filter((l) => /\\p\{/.test(l)))
      expect(line).toMatch(/^const unicode(Start|Part) = /)
  })
})
