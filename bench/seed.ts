/**
 * The dataset, shaped like PocketBase's benchmark: 1 000 users, posts collections of 10k and
 * 100k rows (a ~500-character description, a select, an author relation and an `editors` multi
 * relation), and the collections the other scenarios write to. Collections are defined through
 * the API; rows are written straight into the SQLite file of the stopped server, in exactly the
 * shape svcbase writes them (15-character `[a-z0-9]` ids, `YYYY-MM-DD HH:MM:SS.sssZ` dates, JSON
 * arrays for multi relations), which takes seconds instead of minutes.
 */
import Database from 'better-sqlite3'
import { hashSync } from 'bcryptjs'
import { api } from './api.js'

/** The id of the built-in `users` collection. */
export const USERS_COLLECTION_ID = '_pb_users_auth_'

/** The password of every seeded user. */
export const USER_PASSWORD = 'bench-password-1'

/** The create rule of `creates_ruled`: signed in, and the author is the requester. */
export const CREATE_RULE = '@request.auth.id != "" && author = @request.auth.id'

/** How many rows of what. */
export interface SeedSizes {
  users: number
  small: number
  large: number
  /** Rows of the `deletes` collection (enough for the delete scenario not to run out). */
  deletes: number
}

/** What the scenarios need to know about the seeded data. */
export interface SeedData {
  users: { id: string; email: string }[]
  smallIds: string[]
  largeIds: string[]
  deleteIds: string[]
}

/** The fields of every posts-shaped collection. */
export const postFields = () => [
  { name: 'title', type: 'text', required: true, options: { max: 200 } },
  { name: 'description', type: 'text', options: { max: 2000 } },
  {
    name: 'status',
    type: 'select',
    options: { values: ['draft', 'live', 'archived'], maxSelect: 1 },
  },
  {
    name: 'author',
    type: 'relation',
    options: { collectionId: USERS_COLLECTION_ID, maxSelect: 1 },
  },
  {
    name: 'editors',
    type: 'relation',
    options: { collectionId: USERS_COLLECTION_ID, maxSelect: 5 },
  },
]

/** The index on `created` every posts-shaped collection carries. */
export const createdIndex = (name: string) =>
  `CREATE INDEX idx_${name}_created ON ${name} (created)`

interface Rules {
  listRule?: string | null
  viewRule?: string | null
  createRule?: string | null
  deleteRule?: string | null
  /** Indexes in place of the index on `created` alone. */
  indexes?: string[]
}

/** The posts-shaped collections and their rules. Every one carries an index on `created`. */
const POST_COLLECTIONS: [string, Rules][] = [
  ['posts10k', { listRule: '', viewRule: '' }],
  ['posts100k', { listRule: '', viewRule: '' }],
  ['owned100k', { listRule: 'author = @request.auth.id', viewRule: 'author = @request.auth.id' }],
  // NB: a bare `editors ?= x` compares the stored JSON text and matches nothing; `:each` and
  // `.id` match per item (the first without joining users, the second through them).
  [
    'shared10k',
    { listRule: 'editors:each ?= @request.auth.id', viewRule: 'editors:each ?= @request.auth.id' },
  ],
  [
    'shared10k_id',
    { listRule: 'editors.id ?= @request.auth.id', viewRule: 'editors.id ?= @request.auth.id' },
  ],
  ['creates_open', { viewRule: '', createRule: '' }],
  // The same creates, with a listRule that gives `editors` a junction table (issue 19).
  [
    'creates_indexed',
    { viewRule: '', createRule: '', listRule: 'editors:each ?= @request.auth.id' },
  ],
  // The same creates, with an ordinary index on the single relation `author`: what one index
  // entry per create costs, next to the junction's two.
  [
    'creates_author_idx',
    {
      viewRule: '',
      createRule: '',
      indexes: [
        createdIndex('creates_author_idx'),
        'CREATE INDEX idx_creates_author_idx_author ON creates_author_idx (author)',
      ],
    },
  ],
  ['creates_ruled', { viewRule: '', createRule: CREATE_RULE }],
  ['deletes', { viewRule: '', deleteRule: '' }],
]

/** The thumbnail sizes the `images` collection allows (besides the built-in 100x100). */
export const THUMB_SIZES = ['50x50', '80x80', '120x90', '160x120', '200x200', '240x180', '320x240']

/** Defines every benchmark collection through the API of a running svcbase. */
export async function defineCollections(url: string, token: string): Promise<void> {
  for (const [name, rules] of POST_COLLECTIONS) {
    await api(
      url,
      'POST',
      '/api/collections',
      { name, type: 'base', schema: postFields(), indexes: [createdIndex(name)], ...rules },
      token,
    )
  }
  await api(
    url,
    'POST',
    '/api/collections',
    {
      name: 'rt',
      type: 'base',
      listRule: '',
      viewRule: '',
      createRule: '',
      schema: [
        { name: 'title', type: 'text' },
        { name: 'sentAt', type: 'number' },
      ],
    },
    token,
  )
  await api(
    url,
    'POST',
    '/api/collections',
    {
      name: 'images',
      type: 'base',
      viewRule: '',
      createRule: '',
      schema: [
        { name: 'title', type: 'text' },
        {
          name: 'image',
          type: 'file',
          options: {
            maxSelect: 1,
            maxSize: 10_000_000,
            mimeTypes: ['image/jpeg'],
            thumbs: THUMB_SIZES,
          },
        },
      ],
    },
    token,
  )
}

/** A small seeded PRNG (mulberry32), so every run writes the same-looking data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'
const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut ' +
  'labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris ' +
  'nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse'
).split(' ')

/** Builds random values from one PRNG. */
class Gen {
  private readonly rand: () => number
  private readonly seen = new Set<string>()

  constructor(seed: number) {
    this.rand = prng(seed)
  }

  int(n: number): number {
    return Math.floor(this.rand() * n)
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!
  }

  chars(length: number, alphabet: string): string {
    let out = ''
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)]
    return out
  }

  /** A unique 15-character record id. */
  id(): string {
    for (;;) {
      const id = this.chars(15, ID_ALPHABET)
      if (!this.seen.has(id)) {
        this.seen.add(id)
        return id
      }
    }
  }

  /** About `length` characters of words. */
  text(length: number): string {
    let out = ''
    while (out.length < length) out += (out ? ' ' : '') + this.pick(WORDS)
    return out.slice(0, length)
  }
}

/** A date in svcbase's layout: `YYYY-MM-DD HH:MM:SS.sssZ`. */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ')
}

/** Inserts rows whose keys must all be columns of `table` (checked, so a schema drift fails loudly). */
function insertRows(db: Database.Database, table: string, rows: Iterable<Record<string, unknown>>) {
  const columns = new Set(
    (db.pragma(`table_info("${table}")`) as { name: string }[]).map((c) => c.name),
  )
  let stmt: Database.Statement | undefined
  db.transaction(() => {
    for (const row of rows) {
      if (!stmt) {
        const keys = Object.keys(row)
        const missing = keys.filter((k) => !columns.has(k))
        if (missing.length) throw new Error(`${table} has no column(s) ${missing.join(', ')}`)
        stmt = db.prepare(
          `INSERT INTO "${table}" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`,
        )
      }
      stmt.run(row)
    }
  })()
}

function* postRows(gen: Gen, count: number, users: readonly string[], start: number) {
  for (let i = 0; i < count; i++) {
    // Newest first, one row every 10 s back in time, with some jitter.
    const created = formatDate(start - i * 10_000 - gen.int(5_000))
    const editors = new Set<string>()
    while (editors.size < 3) editors.add(gen.pick(users))
    yield {
      id: gen.id(),
      title: `Post ${i} ${gen.text(40)}`,
      description: gen.text(480 + gen.int(40)),
      status: gen.pick(['draft', 'live', 'live', 'archived']),
      author: users[i % users.length]!,
      editors: JSON.stringify([...editors]),
      created,
      updated: created,
    }
  }
}

const copyRows = (db: Database.Database, to: string, from: string, limit: number) =>
  db.exec(`INSERT INTO "${to}" SELECT * FROM "${from}" ORDER BY created DESC LIMIT ${limit}`)

/** Writes the dataset into `dbFile` (svcbase must not be running) and returns its ids. */
export function seedRows(dbFile: string, sizes: SeedSizes): SeedData {
  const gen = new Gen(7)
  const db = new Database(dbFile)
  db.pragma('journal_mode = WAL')
  const start = Date.now() - 60_000
  const hash = hashSync(USER_PASSWORD, 10)
  const users = Array.from({ length: sizes.users }, (_, i) => ({
    id: gen.id(),
    email: `user${i}@bench.test`,
  }))
  insertRows(
    db,
    'users',
    users.map((u, i) => ({
      id: u.id,
      password: hash,
      tokenKey: gen.chars(50, TOKEN_ALPHABET),
      email: u.email,
      emailVisibility: 0,
      verified: 1,
      name: `User ${i}`,
      avatar: '',
      created: formatDate(start - i * 1000),
      updated: formatDate(start - i * 1000),
    })),
  )
  const userIds = users.map((u) => u.id)
  insertRows(db, 'posts10k', postRows(gen, sizes.small, userIds, start))
  insertRows(db, 'posts100k', postRows(gen, sizes.large, userIds, start))
  copyRows(db, 'owned100k', 'posts100k', sizes.large)
  copyRows(db, 'shared10k', 'posts10k', sizes.small)
  copyRows(db, 'shared10k_id', 'posts10k', sizes.small)
  insertRows(db, 'deletes', postRows(gen, sizes.deletes, userIds, start))
  const ids = (table: string) => db.prepare(`SELECT id FROM "${table}"`).pluck().all() as string[]
  const data = {
    users,
    smallIds: ids('posts10k'),
    largeIds: ids('posts100k'),
    deleteIds: ids('deletes'),
  }
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  return data
}
