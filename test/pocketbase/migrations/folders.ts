/**
 * The migration folders beside this file, shared by the recorder (record.ts, on PocketBase) and
 * the replay (test/migrations-pb.test.ts, on svcbase).
 */
import { cpSync, readdirSync, renameSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const HERE = dirname(fileURLToPath(import.meta.url))

/** The collections `folder/` makes, with the sort their records are read in. */
export const COLLECTIONS = { posts: 'title', tags: 'label', members: 'email' } as const

/**
 * Copies the migration folder `name` to `to`: a `*.ts_` file becomes `*.ts` (kept so in the
 * repository: it is a PocketBase `.ts` migration in plain JavaScript, which the project's own
 * TypeScript build and lint must not take).
 */
export function copyFolder(name: string, to: string): void {
  cpSync(join(HERE, name), to, { recursive: true })
  for (const f of readdirSync(to))
    if (f.endsWith('.ts_')) renameSync(join(to, f), join(to, f.slice(0, -1)))
}
