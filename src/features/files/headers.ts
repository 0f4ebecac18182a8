import { mime } from '../../tools/mime.js'

/** Types served with their real content type and inline (DECISIONS "File downloads"). */
const INLINE =
  /^(image\/(png|jpe?g|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf|text\/plain)$/

/** Plain text is declared UTF-8 (`text/plain; charset=utf-8`, as PocketBase sends it). */
const PLAIN_TEXT = 'text/plain'

/**
 * The content type and disposition a stored file is served with: raster images, audio, video,
 * PDF and plain text (`text/plain; charset=utf-8`) keep their type and show inline (unless
 * `download`); everything else (HTML, SVG, scripts…) is
 * `application/octet-stream` as an attachment, so nothing uploaded runs here. `nosniff` keeps
 * browsers to the declared type.
 */
export function servingHeaders(
  name: string,
  storedType: string | undefined,
  download: boolean,
): Record<string, string> {
  const declared =
    storedType && storedType !== 'application/octet-stream' ? storedType : mime().lookup(name) || ''
  // A stored type may carry parameters (`text/plain; charset=…`): the media type decides.
  const type = declared.split(';')[0]!.trim().toLowerCase()
  const inline = INLINE.test(type)
  const encoded = encodeURIComponent(name)
  return {
    'content-type':
      type === PLAIN_TEXT
        ? 'text/plain; charset=utf-8'
        : inline
          ? type
          : 'application/octet-stream',
    'content-disposition': `${inline && !download ? 'inline' : 'attachment'}; filename="${name.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encoded}`,
    'content-security-policy':
      "default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; sandbox",
    'cache-control': 'max-age=2592000, stale-while-revalidate=86400',
    'x-content-type-options': 'nosniff',
    'accept-ranges': 'bytes',
  }
}
