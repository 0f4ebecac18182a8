/** A minimal structured logger; the app's default writes JSON lines to stdout/stderr. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void
  info(message: string, data?: Record<string, unknown>): void
  warn(message: string, data?: Record<string, unknown>): void
  error(message: string, data?: Record<string, unknown>): void
}

const levels = { debug: 10, info: 20, warn: 30, error: 40 } as const

/** A logger printing one line per entry at or above `min`. */
export function createLogger(min: keyof typeof levels = 'info'): Logger {
  const at = (level: keyof typeof levels) => (message: string, data?: Record<string, unknown>) => {
    if (levels[level] < levels[min]) return
    const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...data })
    if (levels[level] >= levels.warn) process.stderr.write(`${line}\n`)
    else process.stdout.write(`${line}\n`)
  }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} }
