/** The command line of `npm run bench:pocketbase` (see docs/benchmarks.md, "Against PocketBase"). */
import type { ServerKey } from './runner.js'
import { GROUPS, type Group } from './scenarios.js'
import { SIZES, type Size } from './schema.js'

export interface Args {
  rounds: number
  sizes: Size[]
  groups: Group[]
  only: RegExp | null
  cooldownMs: number
  db: boolean
  save: boolean
  savePartial: boolean
  build: boolean
  /** `serve --workers N` for svcbase (both columns); 1 = one process, the default. */
  workers: number
}

export const USAGE = `usage: npm run bench:pocketbase -- [options]
  --rounds=N              rounds; each runs every server once on fresh data, PocketBase first in odd rounds [1]
  --sizes=10k,25k,50k,100k  the posts collections created and searched [all four]
  --groups=create,auth,search  the groups measured (the creates always run: they make the data) [all three]
  --only=REGEX            only the scenarios whose name matches (case-insensitive)
  --cooldown=MS           the pause before each scenario [2000]
  --db                    also svcbase on a throwaway PostgreSQL (scripts/postgres.sh), a third column
  --save                  also write bench/results/pocketbase.{md,json} (refused for a partial run)
  --save-partial          allow --save with --only, --groups or a subset of --sizes
  --workers=N             run svcbase as \`serve --workers=N\` (RSS summed over its processes) [1]
  --no-build              skip npm run build (dist/ must be current)`

export class UsageError extends Error {}

function list<T extends string>(name: string, value: string, allowed: readonly T[]): T[] {
  const items = value.split(',').map((s) => s.trim())
  for (const it of items) {
    if (!(allowed as readonly string[]).includes(it)) {
      throw new UsageError(`--${name}: unknown "${it}" (expected ${allowed.join(', ')})`)
    }
  }
  // In the reference's order, without duplicates.
  return allowed.filter((a) => items.includes(a))
}

export function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    rounds: 1,
    sizes: [...SIZES],
    groups: [...GROUPS],
    only: null,
    cooldownMs: 2000,
    db: false,
    save: false,
    savePartial: false,
    build: true,
    workers: 1,
  }
  for (const arg of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
    if (!m) throw new UsageError(`unexpected argument "${arg}"`)
    const [, key, value] = m
    const need = () => {
      if (value === undefined || value === '') throw new UsageError(`--${key} needs a value`)
      return value
    }
    const int = (min: number) => {
      const n = Number(need())
      if (!Number.isInteger(n) || n < min)
        throw new UsageError(`--${key}: expected an integer >= ${min}`)
      return n
    }
    if (key === 'rounds') a.rounds = int(1)
    else if (key === 'workers') a.workers = int(1)
    else if (key === 'cooldown') a.cooldownMs = int(0)
    else if (key === 'sizes') a.sizes = list('sizes', need(), SIZES)
    else if (key === 'groups') a.groups = list('groups', need(), GROUPS)
    else if (key === 'only') {
      try {
        a.only = new RegExp(need(), 'i')
      } catch (err) {
        throw new UsageError(`--only: ${(err as Error).message}`)
      }
    } else if (value !== undefined) throw new UsageError(`--${key} takes no value`)
    else if (key === 'db') a.db = true
    else if (key === 'save') a.save = true
    else if (key === 'save-partial') a.savePartial = true
    else if (key === 'no-build') a.build = false
    else throw new UsageError(`unknown option --${key}`)
  }
  if (a.save && !a.savePartial && isPartial(a)) {
    throw new UsageError(
      '--save with --only, --groups, --workers or a subset of --sizes would replace the full results with a partial run; add --save-partial to do it anyway',
    )
  }
  return a
}

/** Whether a run leaves out some of the scenarios. */
export function isPartial(a: Args): boolean {
  return (
    a.workers !== 1 ||
    a.only !== null ||
    a.sizes.length < SIZES.length ||
    a.groups.length < GROUPS.length
  )
}

/** The order of the servers in a round: PocketBase first in odd rounds, last in even ones. */
export function roundOrder(round: number, withPg: boolean): ServerKey[] {
  const keys: ServerKey[] = withPg
    ? ['pocketbase', 'svcbase', 'svcbase-pg']
    : ['pocketbase', 'svcbase']
  return round % 2 === 1 ? keys : keys.reverse()
}
