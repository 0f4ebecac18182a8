/**
 * Avatars drawn by hand as SVG: an identicon (a 5×5 grid mirrored left to right, cells and colour
 * from the SHA-256 of the seed) or initials (up to two letters of the seed's words on a
 * seed-coloured background). The same seed always gives the same image.
 */
import { createHash } from 'node:crypto'
import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphPixels } from './glyphs.js'

/** The avatar styles. */
export const AVATAR_STYLES = ['identicon', 'initials'] as const
export type AvatarStyle = (typeof AVATAR_STYLES)[number]

/** How initials are drawn: as SVG text (any script, the viewer's fonts) or as pixel glyphs. */
export type InitialsMode = 'text' | 'glyphs'

const FONT_FAMILY =
  "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif"

/** The SVG of an avatar, `size` pixels square. */
export function avatarSvg(
  seed: string,
  size: number,
  style: AvatarStyle,
  mode: InitialsMode = 'text',
): string {
  const hash = createHash('sha256').update(seed, 'utf8').digest()
  return style === 'identicon' ? identicon(hash, size) : initialsAvatar(seed, hash, size, mode)
}

/** A 5×5 mirrored grid on a light background, with a one-cell-wide half margin (60×60 units). */
function identicon(hash: Buffer, size: number): string {
  const colour = hslHex(hue(hash), 45 + (hash[2]! % 20), 40 + (hash[3]! % 20))
  const cells: [number, number][] = []
  for (let row = 0; row < 5; row++)
    for (let col = 0; col < 3; col++)
      if (hash[4 + row * 3 + col]! % 2 === 0) {
        cells.push([col, row])
        if (col < 2) cells.push([4 - col, row])
      }
  if (cells.length === 0) cells.push([2, 2])
  const d = cells.map(([c, r]) => `M${5 + c * 10} ${5 + r * 10}h10v10h-10z`).join('')
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 60 60" shape-rendering="crispEdges">` +
    `<rect width="60" height="60" fill="#f0f0f0"/><path fill="${colour}" d="${d}"/></svg>`
  )
}

/** Up to two initials in white on a seed-coloured square (100×100 units). */
function initialsAvatar(seed: string, hash: Buffer, size: number, mode: InitialsMode): string {
  const background = hslHex(hue(hash), 45 + (hash[2]! % 20), 35 + (hash[3]! % 12))
  const letters = initials(seed)
  const head =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 100 100">` +
    `<rect width="100" height="100" fill="${background}"/>`
  if (letters.length === 0) return `${head}</svg>`
  if (mode === 'text') {
    const text = escapeXml(letters.join(''))
    return (
      `${head}<text x="50" y="50" fill="#ffffff" font-family="${FONT_FAMILY}" font-size="42" ` +
      `font-weight="600" text-anchor="middle" dominant-baseline="central">${text}</text></svg>`
    )
  }
  // Pixel glyphs 40 units high, 1 font pixel apart, centred.
  const unit = 40 / GLYPH_HEIGHT
  const width = (letters.length * (GLYPH_WIDTH + 1) - 1) * unit
  const left = (100 - width) / 2
  const top = (100 - GLYPH_HEIGHT * unit) / 2
  const round = (n: number) => Math.round(n * 1000) / 1000
  const d = letters
    .flatMap((letter, i) =>
      glyphPixels(letter).map(([x, y]) => {
        const px = left + (i * (GLYPH_WIDTH + 1) + x) * unit
        const py = top + y * unit
        return `M${round(px)} ${round(py)}h${round(unit)}v${round(unit)}h${round(-unit)}z`
      }),
    )
    .join('')
  return `${head}<path fill="#ffffff" d="${d}"/></svg>`
}

/** Made on first use: a segmenter loads ICU's break rules (~1 MB resident) into the process. */
let segmenter: Intl.Segmenter | null = null

/** A grapheme that can stand as an initial: it starts with a letter, digit or symbol (emoji). */
const DRAWABLE = /^[\p{L}\p{N}\p{S}]/u

/**
 * Up to two initials of a seed, Unicode-aware (graphemes, upper-cased): the first of its first
 * and last words (words split on spaces, `.`, `_`, `-` and `+`; an email keeps its local part),
 * or the first drawable grapheme of a one-word seed.
 */
export function initials(seed: string): string[] {
  const at = seed.indexOf('@')
  const name = at > 0 ? seed.slice(0, at) : seed
  const firsts = name
    .split(/[\s._+-]+/u)
    .map((word) => firstDrawable(word))
    .filter((g): g is string => g !== undefined)
  const picked =
    firsts.length >= 2
      ? [firsts[0]!, firsts[firsts.length - 1]!]
      : firsts.length === 1
        ? [firsts[0]!]
        : [firstDrawable(seed)].filter((g): g is string => g !== undefined)
  return picked.map((g) => g.toUpperCase())
}

function firstDrawable(text: string): string | undefined {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })
  for (const { segment } of segmenter.segment(text)) if (DRAWABLE.test(segment)) return segment
  return undefined
}

/** Escapes text for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  )
}

function hue(hash: Buffer): number {
  return ((hash[0]! << 8) | hash[1]!) % 360
}

/** `#rrggbb` of an HSL colour (hue in degrees, saturation and lightness in percent). */
function hslHex(h: number, s: number, l: number): string {
  const sat = s / 100
  const light = l / 100
  const k = (n: number) => (n + h / 30) % 12
  const a = sat * Math.min(light, 1 - light)
  const channel = (n: number) =>
    Math.round(255 * (light - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))))
  return `#${[0, 8, 4].map((n) => channel(n).toString(16).padStart(2, '0')).join('')}`
}
