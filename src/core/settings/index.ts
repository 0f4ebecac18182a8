/**
 * Settings (SPEC §2.7): one group per file under `groups/`, assembled by the table in
 * `registry.ts`, stored and validated by `SettingsService`. A feature declares its own group
 * with `app.settings.registerGroup(group)`.
 */

export { badFormat, isHost, isUrl, lengthRange, notHost, notIn, notUrl } from './checks.js'
export {
  objectGroup,
  type ObjectGroupSpec,
  type SettingsGroup,
  type SettingsValidationContext,
} from './group.js'
export { isCronExpression, type BackupsSettings } from './groups/backups.js'
export type { BatchSettings } from './groups/batch.js'
export type { LogsSettings } from './groups/logs.js'
export type { MetaSettings } from './groups/meta.js'
export type { RateLimitRule, RateLimitSettings } from './groups/rate-limits.js'
export type { S3Settings } from './groups/s3.js'
export type { SmtpSettings } from './groups/smtp.js'
export type { TrustedProxySettings } from './groups/trusted-proxy.js'
export { deepMerge } from './merge.js'
export { SettingsReader, invalid, isObject } from './reader.js'
export { CORE_SETTINGS_GROUPS, SettingsRegistry, type Settings } from './registry.js'
export { SettingsLoadError, SettingsService, type SettingsCheck } from './service.js'
