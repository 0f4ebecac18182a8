/** The date macros of filters (reference §9.5), all in UTC. */
import { formatDate } from '../../tools/dates.js'

const DAY = 86_400_000

/**
 * The value of a macro such as `@now` (a canonical date string) or `@month` (a number) at
 * `now`, or `undefined` when `name` is not a macro.
 */
export function macroValue(name: string, now: Date): string | number | undefined {
  const y = now.getUTCFullYear()
  const m = now.getUTCMonth()
  const d = now.getUTCDate()
  switch (name) {
    case '@now':
      return formatDate(now)
    case '@yesterday':
      return formatDate(new Date(now.getTime() - DAY))
    case '@tomorrow':
      return formatDate(new Date(now.getTime() + DAY))
    case '@todayStart':
      return formatDate(new Date(Date.UTC(y, m, d)))
    case '@todayEnd':
      return formatDate(new Date(Date.UTC(y, m, d + 1) - 1))
    case '@monthStart':
      return formatDate(new Date(Date.UTC(y, m, 1)))
    case '@monthEnd':
      return formatDate(new Date(Date.UTC(y, m + 1, 1) - 1))
    case '@yearStart':
      return formatDate(new Date(Date.UTC(y, 0, 1)))
    case '@yearEnd':
      return formatDate(new Date(Date.UTC(y + 1, 0, 1) - 1))
    case '@second':
      return now.getUTCSeconds()
    case '@minute':
      return now.getUTCMinutes()
    case '@hour':
      return now.getUTCHours()
    case '@day':
      return d
    case '@month':
      return m + 1
    case '@weekday':
      return now.getUTCDay()
    case '@year':
      return y
    default:
      return undefined
  }
}
