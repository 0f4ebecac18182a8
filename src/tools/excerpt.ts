/**
 * Plain-text excerpts of HTML for the `:excerpt(maxChars, withEllipsis?)` modifier of the
 * `fields` picker (PocketBase `tools/picker/excerpt_modifier.go`): tags dropped, entities
 * decoded, whitespace collapsed, cut on characters.
 */

/** A set of space-separated words. */
function words(list: string): ReadonlySet<string> {
  return new Set(list.split(' '))
}

/** Elements whose content never reaches an excerpt (PocketBase's list, plus title/noscript). */
const EXCLUDED_TAGS = words(
  'head title style script noscript iframe embed applet object svg math img picture dialog template button form textarea input select option',
)

/** Elements whose content is raw text: no tags inside until the matching end tag. */
const RAW_TEXT_TAGS = words('script style textarea title xmp iframe noembed noframes noscript')

const VOID_TAGS = words('area base br col embed hr img input link meta param source track wbr')

/** Phrasing elements: no word break at their edges (`<b>a</b>b` reads "ab"). */
const INLINE_TAGS = words(
  'a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd label mark q s samp small span strike strong sub sup time tt u var',
)

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
  hellip: '\u2026',
  mdash: '\u2014',
  ndash: '\u2013',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  laquo: '\u00ab',
  raquo: '\u00bb',
  bull: '\u2022',
  middot: '\u00b7',
  euro: '\u20ac',
}

const ENTITY_RE = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));/g
const HTML_SPACE_RE = /[ \t\n\f\r]+/g
const TAG_NAME_RE = /[^\s/>]*/y

/** Decodes numeric references and the common named entities; unknown names stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(ENTITY_RE, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_ENTITIES[name] ?? whole
    const cp = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16)
    const valid = cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff)
    return valid ? String.fromCodePoint(cp) : '\ufffd'
  })
}

/**
 * The plain text of an HTML fragment, cut to `maxChars` code points: tags dropped, the content
 * of script/style/form-like elements skipped, entities decoded, whitespace collapsed, and `...`
 * appended when `withEllipsis` is set and the text was cut.
 */
export function excerpt(html: string, maxChars: number, withEllipsis = false): string {
  let text = htmlToText(html)
  if (text.length > maxChars) {
    let end = 0
    let count = 0
    for (const ch of text) {
      if (count === maxChars) break
      end += ch.length
      count++
    }
    if (end < text.length) {
      text = text.slice(0, end).trimEnd()
      if (withEllipsis) text += '...'
    }
  }
  return text
}

function htmlToText(html: string): string {
  const parts: string[] = []
  // While inside an excluded element: its name and how many of them are open.
  let skipTag = ''
  let skipDepth = 0
  let i = 0
  while (i < html.length) {
    const lt = html.indexOf('<', i)
    const end = lt < 0 ? html.length : lt
    if (skipDepth === 0 && end > i) parts.push(decodeEntities(html.slice(i, end)))
    if (lt < 0) break
    const next = html[lt + 1] ?? ''
    if (html.startsWith('<!--', lt)) {
      const close = html.indexOf('-->', lt + 4)
      i = close < 0 ? html.length : close + 3
    } else if (next === '!' || next === '?') {
      const close = html.indexOf('>', lt)
      i = close < 0 ? html.length : close + 1
    } else if (next === '/' || /[A-Za-z]/.test(next)) {
      const closing = next === '/'
      TAG_NAME_RE.lastIndex = lt + (closing ? 2 : 1)
      const name = (TAG_NAME_RE.exec(html)?.[0] ?? '').toLowerCase()
      const tagEnd = findTagEnd(html, TAG_NAME_RE.lastIndex)
      i = tagEnd + 1
      const selfClosing = !closing && html[tagEnd - 1] === '/'
      if (skipDepth > 0) {
        if (name === skipTag) skipDepth += closing ? -1 : selfClosing ? 0 : 1
        continue
      }
      if (!INLINE_TAGS.has(name)) parts.push(' ')
      if (closing || selfClosing || VOID_TAGS.has(name)) continue
      if (RAW_TEXT_TAGS.has(name)) {
        const endTag = new RegExp(`</${name}`, 'gi')
        endTag.lastIndex = i
        const close = endTag.exec(html)?.index ?? -1
        const rawEnd = close < 0 ? html.length : close
        if (!EXCLUDED_TAGS.has(name)) parts.push(html.slice(i, rawEnd))
        i = close < 0 ? html.length : findTagEnd(html, close + 2) + 1
      } else if (EXCLUDED_TAGS.has(name)) {
        skipTag = name
        skipDepth = 1
      }
    } else {
      if (skipDepth === 0) parts.push('<')
      i = lt + 1
    }
  }
  return parts.join('').replace(HTML_SPACE_RE, ' ').trim()
}

/**
 * Index of the `>` closing a tag whose attributes start at `from`; a quote opens a value only
 * right after `=`, so `title="a>b"` holds a `>` while `it's` is plain text.
 */
function findTagEnd(html: string, from: number): number {
  let afterEquals = false
  for (let j = from; j < html.length; j++) {
    const ch = html[j] ?? ''
    if (ch === '>') return j
    if (afterEquals && (ch === '"' || ch === "'")) {
      const close = html.indexOf(ch, j + 1)
      if (close < 0) return html.length
      j = close
      afterEquals = false
    } else if (ch === '=') afterEquals = true
    else if (!/\s/.test(ch)) afterEquals = false
  }
  return html.length
}
