/**
 * The built-in features, in the order the composition root registers them. The order is
 * visible: routes and request hooks are added in it (logs' `onResponse` before metrics'), and
 * feature settings groups are listed in it by `GET /api/settings`. A new feature adds one line.
 */
import type { SystemCollectionSpec } from '../core/collections/system.js'
import { apiKeysFeature } from './api-keys/index.js'
import { appleFeature } from './apple/index.js'
import { auditFeature } from './audit/index.js'
import { authFeature } from './auth/index.js'
import { backupsFeature } from './backups/index.js'
import { batchFeature } from './batch/index.js'
import { collectionsFeature } from './collections/index.js'
import { cronsFeature } from './crons/index.js'
import { dashboardFeature } from './dashboard/index.js'
import { enabledFeatures, type Feature, type FeatureSelection } from '../http/feature.js'
import { filesFeature } from './files/index.js'
import { healthFeature } from './health/index.js'
import { hooksFeature } from './hooks/index.js'
import { llmFeature } from './llm/index.js'
import { logsFeature } from './logs/index.js'
import { mailFeature } from './mail/index.js'
import { mcpFeature } from './mcp/index.js'
import { metricsFeature } from './metrics/index.js'
import { notBuiltFeature } from './not-built/index.js'
import { oauth2Feature } from './oauth2/index.js'
import { paymentsFeature } from './payments/index.js'
import { pushFeature } from './push/index.js'
import { rateLimitFeature } from './rate-limit/index.js'
import { realtimeFeature } from './realtime/index.js'
import { recordsFeature } from './records/index.js'
import { schemaFeature } from './schema/index.js'
import { settingsFeature } from './settings/index.js'
import { setupFeature } from './setup/index.js'
import { smsFeature } from './sms/index.js'
import { sqlFeature } from './sql/index.js'
import { staticFeature } from './static/index.js'
import { storageFeature } from './storage/index.js'
import { vectorsFeature } from './vectors/index.js'
import { webhooksFeature } from './webhooks/index.js'
import { teamsFeature } from './teams/index.js'
import { utilsFeature } from './utils/index.js'

export {
  closeFeatures,
  enabledFeatures,
  registerFeatures,
  type Feature,
  type FeatureContext,
  type FeatureSelection,
} from '../http/feature.js'

/** Fresh instances of the built-in features (each server gets its own), in registration order. */
export function builtInFeatures(): Feature[] {
  return [
    healthFeature(),
    setupFeature(),
    collectionsFeature(),
    recordsFeature(),
    filesFeature(),
    authFeature(),
    oauth2Feature(),
    settingsFeature(),
    webhooksFeature(),
    llmFeature(),
    vectorsFeature(),
    mcpFeature(),
    smsFeature(),
    teamsFeature(),
    pushFeature(),
    paymentsFeature(),
    mailFeature(),
    apiKeysFeature(),
    appleFeature(),
    rateLimitFeature(),
    logsFeature(),
    metricsFeature(),
    realtimeFeature(),
    batchFeature(),
    storageFeature(),
    backupsFeature(),
    cronsFeature(),
    sqlFeature(),
    schemaFeature(),
    hooksFeature(),
    auditFeature(),
    utilsFeature(),
    staticFeature(),
    dashboardFeature(),
    notBuiltFeature(),
  ]
}

/**
 * The system collections of every built-in feature: what the CLI's apps know, so a command run
 * on a data folder treats them as `serve` does.
 */
export function builtInSystemCollections(): SystemCollectionSpec[] {
  return builtInFeatures().flatMap((f) => f.systemCollections ?? [])
}

/** The features a selection enables, in order (see {@link enabledFeatures}). */
export function selectFeatures(selection: FeatureSelection = {}): Feature[] {
  return enabledFeatures(selection.features ?? builtInFeatures(), selection.disable)
}
