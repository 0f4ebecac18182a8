/**
 * Brings the system collections of a database made by an older svcbase up to their definitions
 * (`system.ts`), at every start after the missing ones were created:
 *
 * - fields of the definition missing from the stored collection (by name) are added;
 * - indexes of the definition missing from it (by index name) are added;
 * - rules the definition changed since (its `formerRules`) are set to the current default once,
 *   and only where the stored rule still is one of those former defaults: a rule an operator
 *   changed is kept. The versions applied are kept in `_params` (`svc_system_versions`), so a
 *   rule set back to a former default by hand later stays.
 *
 * Each collection is upgraded in its own transaction; one that fails (a unique index that rows
 * of the old database break) is left as it was with a warning in the log, and tried again at the
 * next start.
 */
import type { App } from '../app.js'
import { readParam, writeParam } from '../params.js'
import { parseIndex } from './indexes.js'
import type { Collection, RuleKey } from './model.js'
import type { RuleChange } from './system-rules.js'
import { systemCollections, systemRuleChanges } from './system.js'

const VERSIONS = 'svc_system_versions'

type Versions = Record<string, number>

async function readVersions(app: App): Promise<Versions> {
  const value = await readParam(app.db, VERSIONS)
  if (!value) return {}
  try {
    const v = JSON.parse(value) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Versions) : {}
  } catch {
    return {}
  }
}

function indexName(text: string, c: Collection): string | undefined {
  const spec = parseIndex(text, c)
  return typeof spec === 'string' ? undefined : spec.name.toLowerCase()
}

/** What the stored collection lacks of its definition, or undefined when nothing. */
function upgraded(
  stored: Collection,
  def: Collection,
  fromVersion: number,
  changes: readonly RuleChange[],
): Collection | undefined {
  const fields = def.fields.filter((f) => !stored.fields.some((s) => s.name === f.name))
  const have = new Set(stored.indexes.map((i) => indexName(i, stored)))
  const indexes = def.indexes.filter((i) => !have.has(indexName(i, def)))
  const rules: Partial<Record<RuleKey, string | null>> = {}
  for (const change of changes) {
    if (change.version <= fromVersion) continue
    for (const [key, former] of Object.entries(change.former) as [RuleKey, (string | null)[]][])
      if (former.includes(stored[key])) rules[key] = def[key]
  }
  if (fields.length === 0 && indexes.length === 0 && Object.keys(rules).length === 0) return
  // Added fields go before the autodate stamps, as in a fresh database.
  const stamps = stored.fields.filter((f) => f.type === 'autodate')
  const rest = stored.fields.filter((f) => f.type !== 'autodate')
  return {
    ...stored,
    ...rules,
    fields: [...rest, ...fields, ...stamps],
    indexes: [...stored.indexes, ...indexes],
  }
}

/** Upgrades every stored system collection to its definition (see the module comment). */
export async function upgradeSystemCollections(
  app: App,
  fresh: ReadonlySet<string>,
): Promise<void> {
  const versions = await readVersions(app)
  let changed = false
  const specs = app.systemCollectionSpecs
  for (const def of systemCollections(specs)) {
    const changes = systemRuleChanges(def.id, specs)
    const latest = Math.max(0, ...changes.map((c) => c.version))
    const from = fresh.has(def.id) ? latest : (versions[def.id] ?? 0)
    const stored = app.collections.find(def.id)
    if (!stored) continue
    const next = upgraded(stored, def, from, changes)
    try {
      if (next) {
        await app.runInTransaction(async (tx) => {
          await tx.collections.save(next, stored)
        })
      }
      if ((versions[def.id] ?? 0) !== latest) {
        versions[def.id] = latest
        changed = true
      }
    } catch (err) {
      app.logger.warn(`system collection ${def.name} could not be brought up to date`, {
        error: String(err),
      })
    }
  }
  if (changed) await writeParam(app.db, VERSIONS, JSON.stringify(versions))
}
