/**
 * The full settings table as `createServer` assembles it (core's groups, then those the llm,
 * sms, push and payments features register, in that order), for tests that exercise the
 * settings service and validation without a server.
 */

import type { EventBus } from '../../src/core/events.js'
import {
  CORE_SETTINGS_GROUPS,
  SettingsRegistry,
  SettingsService as CoreSettingsService,
  type Settings,
  type SettingsGroup,
  type SettingsValidationContext,
} from '../../src/core/settings/index.js'
import type { ValidationErrors } from '../../src/core/errors.js'
import { llmSettings } from '../../src/features/llm/settings.js'
import { paymentsSettings } from '../../src/features/payments/settings.js'
import { pushSettings } from '../../src/features/push/settings.js'
import { smsSettings } from '../../src/features/sms/settings.js'
import type { Db } from '../../src/store/db.js'

/** Every settings group of a composed server, in order. */
export const ALL_SETTINGS_GROUPS: readonly SettingsGroup[] = [
  ...CORE_SETTINGS_GROUPS,
  llmSettings,
  smsSettings,
  pushSettings,
  paymentsSettings,
]

/** Every write-only key of a composed server, as dotted paths. */
export const SECRET_PATHS: readonly string[] = new SettingsRegistry(
  ALL_SETTINGS_GROUPS,
).secretPaths()

/** The defaults of every group of a composed server (fresh objects on every call). */
export function defaultSettings(): Settings {
  return new SettingsRegistry(ALL_SETTINGS_GROUPS).defaults()
}

/** Validates a settings change with every group of a composed server. */
export function validateSettings(
  patch: Record<string, unknown>,
  next: unknown,
  ctx: SettingsValidationContext,
): ValidationErrors {
  return new SettingsRegistry(ALL_SETTINGS_GROUPS).validate(patch, next, ctx)
}

/** A `SettingsService` with every group of a composed server. */
export class SettingsService extends CoreSettingsService {
  constructor(db: Db, events: EventBus, encryptionKey?: string) {
    super(db, events, encryptionKey, ALL_SETTINGS_GROUPS)
  }
}
