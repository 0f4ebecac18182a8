/**
 * PocketBase's router answers a path that is not clean (`//`, a `.` or `..` segment) with a 307
 * to the cleaned path, as Go's `http.ServeMux` does: `/api//health` → `/api/health`, the query
 * kept. Only the path as sent counts: an encoded `%2F` is no slash here. svcbase does it for the
 * API (a cleaned path under `/api/`); static hosting answers 404 to a `..` as before.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { posix } from 'node:path'

/** The clean form of a raw path, or null when it is clean already. */
export function cleanPath(path: string): string | null {
  if (!path.startsWith('/')) return null
  if (!/\/\/|\/\.\.?(\/|$)/.test(path)) return null
  let clean = posix.normalize(path)
  // Go's path.Clean drops `..` above the root; normalize keeps none either ("/.." → "/").
  if (path.endsWith('/') && clean !== '/' && !clean.endsWith('/')) clean += '/'
  if (!path.endsWith('/') && clean.length > 1 && clean.endsWith('/')) clean = clean.slice(0, -1)
  return clean === path ? null : clean
}

const escapeHtml = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&#34;')
    .replace(/'/g, '&#39;')

/** An `onRequest` hook: 307 to the cleaned API path, with Go's small HTML body for GET. */
export function redirectUncleanPath(
  req: FastifyRequest,
  reply: FastifyReply,
  done: (err?: Error) => void,
): void {
  const raw = req.raw.url ?? req.url
  const q = raw.indexOf('?')
  const clean = cleanPath(q < 0 ? raw : raw.slice(0, q))
  // NB: the API only: static files keep their own refusals of `..` (a plain 404).
  if (clean === null || !(clean === '/api' || clean.startsWith('/api/'))) return done()
  const location = q < 0 ? clean : clean + raw.slice(q)
  void reply.code(307).header('location', location)
  if (req.method === 'GET' || req.method === 'HEAD') {
    void reply
      .type('text/html; charset=utf-8')
      .send(`<a href="${escapeHtml(location)}">Temporary Redirect</a>.\n\n`)
  } else void reply.send()
}
