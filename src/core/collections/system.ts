import type { DatabaseName } from '../../store/store.js'
import { getFieldType } from '../fields/registry.js'
import { blankCollection, defaultAuthOptions, makeField } from './defaults.js'
import type { Collection, RuleKey } from './model.js'
import {
  allRules,
  owner,
  pbOwner,
  teamManager,
  teamMember,
  type RuleChange,
} from './system-rules.js'
import { bool, date, json, ref, relation, select, text, type Spec } from './system-fields.js'

interface SystemSpec {
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
  /**
   * The rules this definition changed since older databases were made, each with the
   * definition version that changed them: a stored rule still equal to one of the `former`
   * values is set to the current default once (`system-upgrade.ts`).
   */
  ruleChanges?: RuleChange[]
}

/** The users collection PocketBase creates at first start (not a system collection). */
export const USERS_ID = '_pb_users_auth_'

/** Definitions of the collections created at first start (SPEC §2.6 and PocketBase's own). */
const specs: SystemSpec[] = [
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
    id: 'svc_webhooks',
    name: '_webhooks',
    type: 'base',
    fields: [
      text('name', { required: true }),
      { name: 'url', type: 'url', required: true },
      text('collection', { required: true }),
      text('events'),
      // Write-only: the webhooks feature keeps it out of every answer.
      text('secret', { hidden: true }),
      bool('enabled'),
      text('lastStatus'),
      text('lastError'),
      date('lastAttemptAt'),
      { name: 'attempts', type: 'number' },
    ],
  },
  // One row per pending delivery (the durable outbox); written by the webhooks feature only.
  {
    id: 'svc_webhook_outbox',
    name: '_webhook_outbox',
    type: 'base',
    fields: [
      text('webhook', { required: true }),
      text('body', { options: { max: 0 } }),
      { name: 'attempts', type: 'number' },
      date('nextAttemptAt'),
      // Set while one instance sends the row (features/webhooks/lease.ts).
      date('leaseUntil'),
    ],
    indexes: ['CREATE INDEX `idx_webhook_outbox_due` ON `_webhook_outbox` (`nextAttemptAt`)'],
  },
  // Members point at any auth record by reference, so no user collection is pinned by them.
  // The role checks rules cannot express are hooks of features/teams (docs/teams.md).
  {
    id: 'svc_teams',
    name: '_teams',
    type: 'base',
    fields: [text('name', { required: true }), text('ownerRef'), text('ownerCollection')],
    rules: {
      listRule: teamMember('id'),
      viewRule: teamMember('id'),
      createRule: '@request.auth.id != ""',
      // ownerRef/ownerCollection record the creator: only superusers change them.
      updateRule: `${teamMember('id')} && @collection._team_members.role ?!= "member" && @request.body.ownerRef:isset = false && @request.body.ownerCollection:isset = false`,
      deleteRule: `${teamMember('id')} && @collection._team_members.role ?= "owner"`,
    },
    // Databases made before teams had rules: every rule superuser-only.
    ruleChanges: [{ version: 1, former: allRules(null) }],
  },
  {
    id: 'svc_team_members',
    name: '_team_members',
    type: 'base',
    fields: [
      relation('team', 'svc_teams'),
      text('recordRef', { required: true }),
      text('collectionRef', { required: true }),
      { ...select('role', ['owner', 'admin', 'member']), required: true },
    ],
    rules: {
      listRule: teamMember('team', 'me'),
      viewRule: teamMember('team', 'me'),
      createRule: `${teamManager} && @collection._team_members:me.id ?!= id`,
      updateRule: teamManager,
      deleteRule: `(${owner}) || (${teamManager})`,
    },
    ruleChanges: [{ version: 1, former: allRules(null) }],
    indexes: [
      'CREATE UNIQUE INDEX `idx_team_members_member` ON `_team_members` (team, collectionRef, recordRef)',
      'CREATE INDEX `idx_team_members_record` ON `_team_members` (recordRef)',
    ],
  },
  {
    id: 'svc_audit_log',
    name: '_audit_log',
    type: 'base',
    fields: [
      text('action', { required: true }),
      text('collection'),
      text('recordId'),
      text('actorCollection'),
      text('actorId'),
      text('ip'),
    ],
    // Lists sort by created, and the retention prune deletes by it. No API write (features/audit).
    indexes: ['CREATE INDEX idx_audit_log_created ON _audit_log (created)'],
  },
  {
    id: 'svc_push_subscriptions',
    name: '_push_subscriptions',
    type: 'base',
    fields: [
      { ...select('platform', ['web', 'android', 'ios']), required: true },
      text('recordRef'),
      bool('enabled'),
      text('endpoint'),
      json('keys'),
      text('token'),
      // The owner's auth collection (filled from the requester when a create leaves it out).
      text('collectionRef'),
    ],
    rules: {
      listRule: owner,
      viewRule: owner,
      createRule: `@request.auth.id != "" && ${owner}`,
      // A row cannot be handed to another record (it would receive that record's pushes).
      updateRule: `${owner} && (@request.body.recordRef:isset = false || @request.body.recordRef = @request.auth.id) && (@request.body.collectionRef:isset = false || @request.body.collectionRef = @request.auth.collectionId)`,
      deleteRule: owner,
    },
    ruleChanges: [
      // The first update rule let a row be handed to another record.
      { version: 1, former: { updateRule: ['recordRef = @request.auth.id'] } },
      // Rules on recordRef alone let a record of another auth collection with the same id in.
      {
        version: 2,
        former: {
          listRule: ['recordRef = @request.auth.id'],
          viewRule: ['recordRef = @request.auth.id'],
          createRule: ['@request.auth.id != "" && recordRef = @request.auth.id'],
          updateRule: [
            'recordRef = @request.auth.id',
            'recordRef = @request.auth.id && (@request.body.recordRef:isset = false || @request.body.recordRef = @request.auth.id)',
          ],
          deleteRule: ['recordRef = @request.auth.id'],
        },
      },
    ],
    // Targeted sends and triggers read the enabled rows of one recordRef.
    indexes: ['CREATE INDEX idx_push_subscriptions_recordRef ON _push_subscriptions (recordRef)'],
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
  {
    id: 'svc_payment_events',
    name: '_payment_events',
    type: 'base',
    fields: [text('eventId', { required: true, unique: true }), text('type'), json('payload')],
  },
  {
    // One row per LLM gateway call (features/llm): who asked, which model, the tokens counted.
    id: 'svc_llm_usage',
    name: '_llm_usage',
    type: 'base',
    fields: [
      text('authCollection'),
      text('authId'),
      text('provider'),
      text('model'),
      { name: 'promptTokens', type: 'number' },
      { name: 'completionTokens', type: 'number' },
      { name: 'durationMs', type: 'number' },
      bool('ok'),
      text('error'),
    ],
    // Operators sum and prune (superusers may delete) by date and caller; expendable like logs.
    indexes: [
      'CREATE INDEX idx_llm_usage_created ON _llm_usage (created)',
      'CREATE INDEX idx_llm_usage_auth ON _llm_usage (authId)',
    ],
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

/**
 * The database a system collection's definition places it in, by id, or undefined (`main`).
 * For collections stored before the attribute was: their row does not carry it.
 */
export function systemDatabase(id: string): DatabaseName | undefined {
  return specs.find((s) => s.id === id)?.database
}

/** The rule changes of a system collection's definition, by id (oldest first). */
export function systemRuleChanges(id: string): RuleChange[] {
  return specs.find((s) => s.id === id)?.ruleChanges ?? []
}

/** The collections to create at first start, in dependency order. */
export function systemCollections(): Collection[] {
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
    return c
  })
}
