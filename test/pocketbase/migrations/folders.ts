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

/** The collections API calls whose automigrate files are recorded and compared. */
export const AUTOMIGRATE_STEPS: { method: string; path: string; body?: unknown }[] = [
  {
    method: 'POST',
    path: '/api/collections',
    body: {
      name: 'Work',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'number' },
      ],
    },
  },
  {
    method: 'PATCH',
    path: '/api/collections/Work',
    body: {
      listRule: '',
      fields: [
        {
          name: 'id',
          type: 'text',
          id: 'text3208210256',
          primaryKey: true,
          system: true,
          required: true,
          min: 15,
          max: 15,
          pattern: '^[a-z0-9]+$',
          autogeneratePattern: '[a-z0-9]{15}',
        },
        { name: 'done', type: 'bool' },
        { name: 'title', type: 'text', id: 'text724990059', max: 50 },
      ],
    },
  },
  // Nothing changes: no file.
  { method: 'PATCH', path: '/api/collections/Work', body: {} },
  { method: 'PATCH', path: '/api/collections/Work', body: { name: 'articles' } },
  { method: 'DELETE', path: '/api/collections/articles' },
  {
    method: 'POST',
    path: '/api/collections',
    body: { name: 'members', type: 'auth', fields: [{ name: 'nick', type: 'text' }] },
  },
  {
    method: 'PATCH',
    path: '/api/collections/members',
    body: { listRule: 'id = @request.auth.id' },
  },
]

/** A generated migration file as recorded: its kind and collection (no time), and its text. */
export interface GeneratedFile {
  name: string
  text: string
}

/** `<unix seconds>_<kind>_<name>.js` without the seconds. */
export const withoutTime = (file: string): string => file.replace(/^\d+_/, '')
