/** One hour of `GET /api/logs/stats`. */
export interface LogsStat {
  total: number
  date: string
}

/** One request log of `GET /api/logs`. */
export interface LogItem {
  id: string
  created: string
  level: number
  message: string
  data: Record<string, unknown>
}

/** A level's name (PocketBase's slog levels). */
export function levelName(level: number): string {
  if (level >= 8) return 'ERROR'
  if (level >= 4) return 'WARN'
  if (level >= 0) return 'INFO'
  return 'DEBUG'
}
