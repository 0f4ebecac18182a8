/**
 * The table of settings groups: the core ones in the order `GET /api/settings` lists them, and
 * the groups features add. Defaults, secrets, stored-value overlay and validation of the whole
 * settings object are all derived from it.
 */

import type { ValidationErrors } from '../errors.js'
import type { SettingsGroup, SettingsValidationContext } from './group.js'
import { backupsSettings, type BackupsSettings } from './groups/backups.js'
import { batchSettings, type BatchSettings } from './groups/batch.js'
import { connectionsSettings, type ConnectionsSettings } from './groups/connections.js'
import { logsSettings, type LogsSettings } from './groups/logs.js'
import { metaSettings, type MetaSettings } from './groups/meta.js'
import { rateLimitsSettings, type RateLimitSettings } from './groups/rate-limits.js'
import { readsSettings, type ReadsSettings } from './groups/reads.js'
import { s3Settings, type S3Settings } from './groups/s3.js'
import { smtpSettings, type SmtpSettings } from './groups/smtp.js'
import { superuserIpsSettings } from './groups/superuser-ips.js'
import { trustedProxySettings, type TrustedProxySettings } from './groups/trusted-proxy.js'
import { overlayStored } from './merge.js'
import type { Obj } from './reader.js'
import { withoutSecrets } from './secrets.js'
import { validateGroups } from './validate.js'

/**
 * The settings object (SPEC §2.7, key names per DECISIONS). A feature that registers a group
 * adds its key here by declaration merging, next to its group:
 * `declare module '../../core/settings/registry.js' { interface Settings { push: PushSettings } }`.
 */
export interface Settings {
  meta: MetaSettings
  smtp: SmtpSettings
  s3: S3Settings
  backups: BackupsSettings
  batch: BatchSettings
  rateLimits: RateLimitSettings
  trustedProxy: TrustedProxySettings
  logs: LogsSettings
  superuserIPs: string[]
  connections: ConnectionsSettings
  reads: ReadsSettings
}

/** The groups of core, in the order they are listed. */
export const CORE_SETTINGS_GROUPS: readonly SettingsGroup[] = [
  metaSettings,
  smtpSettings,
  s3Settings,
  backupsSettings,
  batchSettings,
  rateLimitsSettings,
  trustedProxySettings,
  logsSettings,
  superuserIpsSettings,
  connectionsSettings,
  readsSettings,
]

// Keys a group may not take: they would not stay plain data in a settings object.
const RESERVED = new Set(['', '__proto__', 'constructor', 'prototype'])

/** An ordered table of settings groups by key; each key is taken at most once. */
export class SettingsRegistry {
  private readonly table = new Map<string, SettingsGroup>()

  /** @param groups the groups to start with, in order (core's by default) */
  constructor(groups: Iterable<SettingsGroup> = CORE_SETTINGS_GROUPS) {
    for (const group of groups) this.register(group)
  }

  /** Adds a group at the end; throws when its key is taken or reserved. */
  register(group: SettingsGroup): void {
    if (RESERVED.has(group.key) || group.key.includes('.'))
      throw new Error(`"${group.key}" cannot be the key of a settings group.`)
    if (this.table.has(group.key))
      throw new Error(`The settings group "${group.key}" is already registered.`)
    this.table.set(group.key, group)
  }

  /** The groups in registration order. */
  get groups(): readonly SettingsGroup[] {
    return [...this.table.values()]
  }

  /** The defaults of every group (fresh objects on every call). */
  defaults(): Settings {
    return Object.fromEntries(this.groups.map((g) => [g.key, g.defaults()])) as unknown as Settings
  }

  /** Every write-only key as a dotted path from the top (`smtp.password`, `backups.s3.secret`). */
  secretPaths(): string[] {
    return this.groups.flatMap((g) => (g.secrets ?? []).map((path) => `${g.key}.${path}`))
  }

  /**
   * Lays a stored settings object over the defaults: unknown keys and values of the wrong JSON
   * kind are dropped, missing ones take their default.
   */
  overlay(stored: Obj): Settings {
    return overlayStored(this.defaults() as unknown as Obj, stored) as unknown as Settings
  }

  /** Validates a patch and its merged result group by group (see `validateGroups`). */
  validate(
    patch: Record<string, unknown>,
    next: unknown,
    ctx: SettingsValidationContext,
  ): ValidationErrors {
    return validateGroups(this.groups, patch, next, ctx)
  }

  /** A deep copy of `settings` with every group's write-only keys left out. */
  withoutSecrets(settings: object): Record<string, unknown> {
    return withoutSecrets(settings, this.secretPaths())
  }
}
