import { CronPattern } from 'croner'
import { validationError } from '../../errors.js'
import { objectGroup } from '../group.js'
import { checkS3, s3Defaults, type S3Settings } from './s3.js'

/** `backups`: the automatic backup job and where backups go. */
export type BackupsSettings = {
  /** A cron expression; empty disables the automatic backups. */
  cron: string
  cronMaxKeep: number
  s3: S3Settings
}

/** True for a 5-field cron expression or a `@daily`-style macro that croner can schedule. */
export function isCronExpression(expr: string): boolean {
  return cronProblem(expr) === null
}

/**
 * What is wrong with a cron expression, as PocketBase tells it: `'form'` for anything but a known
 * macro or 5 space-separated segments, `'segment'` for 5 segments croner cannot schedule; null
 * when it is valid.
 */
function cronProblem(expr: string): 'form' | 'segment' | null {
  const s = expr.trim()
  if (!s.startsWith('@') && s.split(/\s+/).length !== 5) return 'form'
  try {
    new CronPattern(s)
    return null
  } catch {
    return s.startsWith('@') ? 'form' : 'segment'
  }
}

/** The `backups` group: a valid cron (or none), how many to keep, an S3 block of its own. */
export const backupsSettings = objectGroup<BackupsSettings>({
  key: 'backups',
  secrets: ['s3.secret'],
  defaults: () => ({ cron: '', cronMaxKeep: 3, s3: s3Defaults() }),
  check(g) {
    const cron = g.requiredString('cron', false)
    const problem = cron === undefined ? null : cronProblem(cron)
    if (problem === 'form') g.fail('cron', validationError('validation_invalid_cron'))
    else if (problem === 'segment')
      g.fail('cron', validationError('validation_invalid_cron:segment'))
    g.count('cronMaxKeep', cron !== undefined ? 1 : 0, cron !== undefined)
    g.object('s3', checkS3)
  },
})
