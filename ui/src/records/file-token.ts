/** A superuser file token for protected files' URLs, fetched once and kept for 1 minute (they last 180 s). */
import { pb } from '../api'

let cache: { token: string; at: number } | null = null

/** The cached file token (a new one after a minute). */
export async function fileToken(): Promise<string> {
  if (cache && Date.now() - cache.at < 60_000) return cache.token
  const token = await pb.files.getToken()
  cache = { token, at: Date.now() }
  return token
}
