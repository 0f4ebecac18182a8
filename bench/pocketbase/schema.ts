/**
 * The collections of PocketBase's benchmark (`schema.go` of github.com/pocketbase/benchmarks,
 * restated in `shared/reference/pocketbase-benchmarks.md` §1): organizations, permissions, users
 * and the four posts collections, with the same ids, field ids, options, rules and indexes. The
 * bench imports them through `PUT /api/collections/import` (deleteMissing false) on both servers,
 * and "resets" a collection by PATCHing its rules and indexes back to these values.
 */

/** The posts collections by size: collection id and the field ids of title/description/public/type/author. */
export const POSTS = {
  '10k': {
    id: 'fzbkdgh2fr7ak3z',
    fields: ['vvmhpomj', 'jddyngzm', 'utwvk5sk', 'liuxouuk', 'e6uxsuqu'],
  },
  '25k': {
    id: '8tdh70gfoplhw4i',
    fields: ['c1vgnelo', 'wjowv38k', 'zdxzgkue', 'jv4eb3km', '3xqeysek'],
  },
  '50k': {
    id: '3wb14jxop88yw2j',
    fields: ['55lheksn', 'tld6qqg0', 'prb0aw0g', 'b2uhk9hr', 'undhpctz'],
  },
  '100k': {
    id: 'n1ai0r1nhwpcup3',
    fields: ['wpdot1nx', 'k3cmuwgh', '9dif65ys', 'uds0lj60', 'ne5qvfgj'],
  },
} as const

export type Size = keyof typeof POSTS
export const SIZES: readonly Size[] = ['10k', '25k', '50k', '100k']
/** Records created per posts collection (two batches of half). */
export const POSTS_TOTAL: Record<Size, number> = {
  '10k': 10_000,
  '25k': 25_000,
  '50k': 50_000,
  '100k': 100_000,
}

export const ORGANIZATIONS_ID = 'mfslsmb563utlfe'
export const PERMISSIONS_ID = 'mum324voxqe7tp4'
export const USERS_ID = '_pb_users_auth_'

/** The one description every post has (480 characters; `description ~ 'ipsum dolor'` matches all). */
export const DESCRIPTION =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit. Donec sit amet sodales nisl, quis pretium nunc. Suspendisse vel auctor velit, sed luctus lectus. Phasellus rhoncus imperdiet feugiat. Duis et laoreet felis, ut facilisis enim. Quisque aliquet aliquam magna eget eleifend. Duis sed tellus nibh. Nunc ac lacus auctor, scelerisque magna congue, euismod purus. Fusce sollicitudin pharetra egestas. Quisque pulvinar augue nec aliquam placerat. Suspendisse dapibus ornare sodales.'

type Field = Record<string, unknown>

const plain = { hidden: false, presentable: false, system: false }

const idField: Field = {
  id: 'text3208210256',
  name: 'id',
  type: 'text',
  primaryKey: true,
  system: true,
  required: true,
  min: 15,
  max: 15,
  pattern: '^[a-z0-9]+$',
  autogeneratePattern: '[a-z0-9]{15}',
  hidden: false,
  presentable: false,
}

const autodates: Field[] = [
  {
    ...plain,
    id: 'autodate2990389176',
    name: 'created',
    type: 'autodate',
    onCreate: true,
    onUpdate: false,
  },
  {
    ...plain,
    id: 'autodate3332085495',
    name: 'updated',
    type: 'autodate',
    onCreate: true,
    onUpdate: true,
  },
]

const text = (id: string, name: string, max = 0): Field => ({
  ...plain,
  id,
  name,
  type: 'text',
  required: false,
  primaryKey: false,
  min: 0,
  max,
  pattern: '',
  autogeneratePattern: '',
})

const bool = (id: string, name: string, system = false): Field => ({
  ...plain,
  id,
  name,
  type: 'bool',
  required: false,
  system,
})

const relation = (
  id: string,
  name: string,
  collectionId: string,
  maxSelect: number,
  required: boolean,
): Field => ({
  ...plain,
  id,
  name,
  type: 'relation',
  collectionId,
  cascadeDelete: true,
  maxSelect,
  minSelect: 0,
  required,
})

/** The five rules and the indexes of a collection as §1 lists them. */
export interface Rules {
  listRule: string | null
  viewRule: string | null
  createRule: string | null
  updateRule: string | null
  deleteRule: string | null
  indexes: string[]
}

const authListed = (indexes: string[] = []): Rules => ({
  listRule: "@request.auth.id != ''",
  viewRule: '',
  createRule: '',
  updateRule: '',
  deleteRule: '',
  indexes,
})

const USERS_INDEXES = [
  'CREATE UNIQUE INDEX `__pb_users_auth__username_idx` ON `users` (username COLLATE NOCASE)',
  "CREATE UNIQUE INDEX `__pb_users_auth__email_idx` ON `users` (`email`) WHERE `email` != ''",
  'CREATE UNIQUE INDEX `__pb_users_auth__tokenKey_idx` ON `users` (`tokenKey`)',
]

/** The rules and indexes each benchmark collection returns to on a reset, by name. */
export function resetRules(name: string): Rules {
  if (name === 'users') return authListed(USERS_INDEXES)
  if (name === 'organizations' || name === 'permissions') return authListed()
  return { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '', indexes: [] }
}

function postsCollection(size: Size): Record<string, unknown> {
  const { id, fields } = POSTS[size]
  const [title, description, isPublic, type, author] = fields
  const name = `posts${size}`
  return {
    id,
    name,
    type: 'base',
    system: false,
    ...resetRules(name),
    fields: [
      idField,
      text(title, 'title'),
      {
        ...plain,
        id: description,
        name: 'description',
        type: 'editor',
        required: false,
        maxSize: 0,
        convertURLs: false,
      },
      bool(isPublic, 'public'),
      {
        ...plain,
        id: type,
        name: 'type',
        type: 'select',
        required: false,
        maxSelect: 3,
        values: ['a', 'b', 'c', 'd'],
      },
      relation(author, 'author', USERS_ID, 1, false),
      ...autodates,
    ],
  }
}

function usersCollection(): Record<string, unknown> {
  const token = (duration: number) => ({ duration })
  return {
    id: USERS_ID,
    name: 'users',
    type: 'auth',
    system: false,
    ...resetRules('users'),
    authRule: '',
    manageRule: null,
    passwordAuth: { enabled: true, identityFields: ['email', 'username'] },
    oauth2: {
      enabled: false,
      mappedFields: { id: '', name: '', username: 'username', avatarURL: '' },
    },
    mfa: { enabled: false, duration: 1800, rule: '' },
    otp: { enabled: false, duration: 180, length: 8 },
    authAlert: { enabled: false },
    authToken: token(1209600),
    passwordResetToken: token(1800),
    emailChangeToken: token(1800),
    verificationToken: token(604800),
    fileToken: token(120),
    fields: [
      idField,
      {
        ...plain,
        id: 'password901924565',
        name: 'password',
        type: 'password',
        hidden: true,
        system: true,
        required: true,
        min: 8,
        max: 0,
        pattern: '',
        cost: 10,
      },
      {
        ...plain,
        id: 'text2504183744',
        name: 'tokenKey',
        type: 'text',
        hidden: true,
        system: true,
        required: true,
        primaryKey: false,
        min: 30,
        max: 60,
        pattern: '',
        autogeneratePattern: '[a-zA-Z0-9_]{50}',
      },
      {
        ...plain,
        id: 'email3885137012',
        name: 'email',
        type: 'email',
        system: true,
        required: false,
        exceptDomains: null,
        onlyDomains: null,
      },
      bool('bool1547992806', 'emailVisibility', true),
      bool('bool256245529', 'verified', true),
      {
        ...text('text4166911607', 'username', 150),
        required: true,
        min: 3,
        pattern: '^[\\w][\\w\\.\\-]*$',
        autogeneratePattern: 'users[0-9]{6}',
      },
      relation('dzrx3l87', 'organization', ORGANIZATIONS_ID, 1, true),
      relation('8tmffoqz', 'permissions', PERMISSIONS_ID, 2147483647, false),
      ...autodates,
    ],
  }
}

/** The collections to import, in dependency order (organizations and permissions before users). */
export function benchmarkCollections(): Record<string, unknown>[] {
  const base = (id: string, name: string, fields: Field[]) => ({
    id,
    name,
    type: 'base',
    system: false,
    ...resetRules(name),
    fields: [idField, ...fields, ...autodates],
  })
  return [
    base(ORGANIZATIONS_ID, 'organizations', [text('59ivonnc', 'name')]),
    base(PERMISSIONS_ID, 'permissions', [text('qualee2c', 'name'), bool('svbmsok7', 'active')]),
    usersCollection(),
    ...SIZES.map(postsCollection),
  ]
}
