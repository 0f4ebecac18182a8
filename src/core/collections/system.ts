import type { DatabaseName } from '../../store/store.js'
import { getFieldType } from '../fields/registry.js'
import { blankCollection, defaultAuthOptions, makeField } from './defaults.js'
import type { Collection, RuleKey } from './model.js'
import { owner, pbOwner, type RuleChange } from './system-rules.js'
import { date, json, ref, select, text, type Spec } from './system-fields.js'

/**
 * The definition of a system collection: core's own below, a feature's in its folder (its
 * `Feature.systemCollections`, merged by the composition root: `newApp(config, {
 * systemCollections })`), so a feature's collections exist only where the feature runs.
 */
export interface SystemCollectionSpec {
  id: string
  name: string
  type: 'base' | 'auth'
  fields: Spec[]
  rules?: Partial<
    Pick<Collection, 'listRule' | 'viewRule' | 'createRule' | 'updateRule' | 'deleteRule'>
  >
  indexes?: string[]
  system?: boolean
  /** The store's database of its table, when not `main`. */
  database?: DatabaseName
  /** Fields written but never answered (`Collection.writeOnly`). */
  writeOnly?: string[]
  /**
   * The rules this definition changed since older databases were made, each with the
   * definition version that changed them: a stored rule still equal to one of the `former`
   * values is set to the current default once (`system-upgrade.ts`).
   */
  ruleChanges?: RuleChange[]
}

/** The users collection PocketBase creates at first start (not a system collection). */
export const USERS_ID = '_pb_users_auth_'

/** Core's system collections, created at first start (SPEC §2.6 and PocketBase's own). */
const coreSpecs: SystemCollectionSpec[] = [
  {
    id: 'pbc_3142635823',
    name: '_superusers',
    type: 'auth',
    fields: [],
    indexes: [
      'CREATE UNIQUE INDEX `idx_tokenKey_pbc_3142635823` ON `_superusers` (`tokenKey`)',
      "CREATE UNIQUE INDEX `idx_email_pbc_3142635823` ON `_superusers` (`email`) WHERE `email` != ''",
    ],
  },
  {
    id: USERS_ID,
    name: 'users',
    type: 'auth',
    system: false,
    fields: [
      text('name', { options: { max: 255 } }),
      {
        name: 'avatar',
        type: 'file',
        options: {
          maxSelect: 1,
          mimeTypes: ['image/jpeg', 'image/png', 'image/svg+xml', 'image/gif', 'image/webp'],
        },
      },
    ],
    rules: {
      listRule: 'id = @request.auth.id',
      viewRule: 'id = @request.auth.id',
      createRule: '',
      updateRule: 'id = @request.auth.id',
      deleteRule: 'id = @request.auth.id',
    },
    indexes: [
      'CREATE UNIQUE INDEX `idx_tokenKey__pb_users_auth_` ON `users` (`tokenKey`)',
      "CREATE UNIQUE INDEX `idx_email__pb_users_auth_` ON `users` (`email`) WHERE `email` != ''",
    ],
  },
  // PocketBase's own system collections, with its exact rules and indexes (v0.23+).
  {
    id: 'pbc_2281828961',
    name: '_externalAuths',
    type: 'base',
    fields: [ref('collectionRef'), ref('recordRef'), ref('provider'), ref('providerId')],
    rules: { listRule: pbOwner, viewRule: pbOwner, deleteRule: pbOwner },
    indexes: [
      'CREATE UNIQUE INDEX `idx_externalAuths_record_provider` ON `_externalAuths` (collectionRef, recordRef, provider)',
      'CREATE UNIQUE INDEX `idx_externalAuths_collection_provider` ON `_externalAuths` (collectionRef, provider, providerId)',
    ],
  },
  {
    id: 'pbc_2279338944',
    name: '_mfas',
    type: 'base',
    fields: [ref('collectionRef'), ref('recordRef'), ref('method')],
    rules: { listRule: pbOwner, viewRule: pbOwner },
    indexes: [
      'CREATE INDEX `idx_mfas_collectionRef_recordRef` ON `_mfas` (collectionRef,recordRef)',
    ],
  },
  {
    id: 'pbc_1638494021',
    name: '_otps',
    type: 'base',
    fields: [
      ref('collectionRef'),
      ref('recordRef'),
      {
        name: 'password',
        type: 'password',
        required: true,
        system: true,
        hidden: true,
        options: { min: 1, max: 71, cost: 8 },
      },
      text('sentTo', { hidden: true, system: true }),
    ],
    rules: { listRule: pbOwner, viewRule: pbOwner },
    indexes: [
      'CREATE INDEX `idx_otps_collectionRef_recordRef` ON `_otps` (collectionRef, recordRef)',
    ],
  },
  {
    id: 'pbc_4275539003',
    name: '_authOrigins',
    type: 'base',
    fields: [ref('collectionRef'), ref('recordRef'), ref('fingerprint')],
    rules: { listRule: pbOwner, viewRule: pbOwner, deleteRule: pbOwner },
    indexes: [
      'CREATE UNIQUE INDEX `idx_authOrigins_unique_pairs` ON `_authOrigins` (collectionRef, recordRef, fingerprint)',
    ],
  },
  {
    id: 'svc_cron_jobs',
    name: '_cron_jobs',
    type: 'base',
    fields: [
      text('jobId', { required: true, unique: true }),
      text('expression'),
      select('source', ['system', 'hooks']),
      date('lastRun'),
      text('lastStatus'),
      text('lastError'),
    ],
  },
  {
    id: 'svc_api_keys',
    name: '_api_keys',
    type: 'base',
    fields: [
      text('name', { required: true }),
      text('keyHash', { required: true, hidden: true, unique: true }),
      text('recordRef', { required: true }),
      text('collectionRef', { required: true }),
      date('expires'),
      date('lastUsed'),
    ],
    rules: { listRule: owner, viewRule: owner, deleteRule: owner },
  },
  {
    id: 'svc_logs',
    name: '_logs',
    type: 'base',
    fields: [{ name: 'level', type: 'number' }, text('message'), json('data')],
    // Log lists sort by created, and retention deletes and stats scan by it.
    indexes: ['CREATE INDEX idx_logs_created ON _logs (created)'],
    // Written in bulk and expendable: kept apart from the data (PocketBase's auxiliary.db).
    database: 'auxiliary',
  },
]

/**
 * The rules a system collection is created with (PocketBase's exact ones for its own), or
 * undefined for a name that is no system collection. An import that carries these rules for a
 * system collection changes nothing, even where an older database stores a variant of them.
 */
export function defaultSystemRules(
  name: string,
  specs: readonly SystemCollectionSpec[] = coreSpecs,
): Partial<Record<RuleKey, string | null>> | undefined {
  const spec = specs.find((s) => s.name === name && s.system !== false)
  if (!spec) return undefined
  return {
    listRule: null,
    viewRule: null,
    createRule: null,
    updateRule: null,
    deleteRule: null,
    ...spec.rules,
  }
}

/** The rule changes of a system collection's definition, by id (oldest first). */
export function systemRuleChanges(
  id: string,
  specs: readonly SystemCollectionSpec[] = coreSpecs,
): RuleChange[] {
  return specs.find((s) => s.id === id)?.ruleChanges ?? []
}

/**
 * The system collections of `specs` (core's by default) as collections, in dependency order:
 * what the first start creates.
 */
export function systemCollections(
  specs: readonly SystemCollectionSpec[] = coreSpecs,
): Collection[] {
  return specs.map((spec) => {
    const c = blankCollection(spec.type, spec.name)
    c.id = spec.id
    c.system = spec.system ?? true
    const extra = spec.fields.map((f) =>
      makeField({ ...f, options: { ...getFieldType(f.type)?.defaultOptions(), ...f.options } }),
    )
    // Keep created/updated last, like PocketBase's default layout; on `users` (not a system
    // collection) they are ordinary fields, as in PocketBase.
    const stamps = c.fields.filter((f) => f.type === 'autodate')
    if (!c.system) for (const f of stamps) f.system = false
    c.fields = [...c.fields.filter((f) => f.type !== 'autodate'), ...extra, ...stamps]
    Object.assign(
      c,
      { listRule: null, viewRule: null, createRule: null, updateRule: null, deleteRule: null },
      spec.rules,
    )
    c.indexes = spec.indexes ?? []
    if (spec.name === '_superusers') c.authOptions = defaultAuthOptions(true)
    if (spec.id === USERS_ID && c.authOptions) {
      c.authOptions.oauth2.mappedFields = {
        id: '',
        name: 'name',
        username: '',
        avatarURL: 'avatar',
      }
    }
    if (spec.database) c.database = spec.database
    if (spec.writeOnly) c.writeOnly = spec.writeOnly
    return c
  })
}

/** Core's system collections, then `extra` (the features'); throws on an id or name twice. */
export function withSystemCollections(
  extra: readonly SystemCollectionSpec[],
): readonly SystemCollectionSpec[] {
  const all = [...coreSpecs, ...extra]
  for (const key of ['id', 'name'] as const) {
    const seen = new Set<string>()
    for (const spec of all) {
      if (seen.has(spec[key]))
        throw new Error(`two system collections have the ${key} "${spec[key]}"`)
      seen.add(spec[key])
    }
  }
  return all
}
