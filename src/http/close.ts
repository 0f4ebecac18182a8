import type { FastifyInstance } from 'fastify'

/** How long `closeHttp` lets requests in flight finish before their connections are cut. */
export const CLOSE_GRACE_MS = 3_000

/**
 * Stops an HTTP instance: idle keep-alive connections close at once; a request still running (a
 * slow upload, a client that stopped sending its body) gets a grace period, then its socket is
 * cut.
 */
export async function closeHttp(
  http: FastifyInstance,
  graceMs: number = CLOSE_GRACE_MS,
): Promise<void> {
  const cut = setTimeout(() => http.server.closeAllConnections(), graceMs)
  try {
    await http.close()
  } finally {
    clearTimeout(cut)
  }
}
