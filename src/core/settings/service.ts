import { Mutex } from 'async-mutex'
import type { Db } from '../../store/db.js'
import { decrypt, deriveKey, encrypt, isEncrypted, pocketBaseCipher } from '../../tools/crypto.js'
import type { ValidationErrors } from '../errors.js'
import { readParam, writeParam } from '../params.js'
import type { EventBus } from '../events.js'
import type { SettingsGroup, SettingsValidationContext } from './group.js'
import { deepMerge, overlayStored } from './merge.js'
import { define, isObject, type Obj } from './reader.js'
import { CORE_SETTINGS_GROUPS, SettingsRegistry, type Settings } from './registry.js'

/** Thrown when the stored settings cannot be read (encrypted without a key, wrong key, bad JSON). */
export class SettingsLoadError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause })
    this.name = 'SettingsLoadError'
  }
}

/** Parses stored JSON, or throws `SettingsLoadError`. */
function parseStored(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new SettingsLoadError('The stored settings are not valid JSON.', err)
  }
}

/**
 * Checks a merged settings object before it is stored; throws (an `ApiError` with field errors)
 * to refuse it.
 */
export type SettingsCheck = (next: Settings) => void

/**
 * Runs inside the transaction of a settings save, right after the row is written (the audit
 * log's seam); throwing rolls the save back.
 */
export type SettingsSaveHandler = (tx: Db) => Promise<void>

/**
 * The stored settings, cached in memory: one JSON row `settings` in `_params`, merged over the
 * defaults of a table of groups (core's, plus those features register). With an encryption key
 * the row holds the JSON encrypted (AES-256-GCM): with a key of 32 bytes as PocketBase does
 * (base64 text), else svcbase's way (scrypt-derived key) as a JSON string; without one it holds
 * the JSON object. Every change publishes a `settings` event.
 */
/** The `_params` row holding the stored settings. */
const SETTINGS_PARAM = 'settings'

export class SettingsService {
  private readonly registry: SettingsRegistry
  private current: Settings
  /** The stored row as read or last written: the source of groups registered later. */
  private stored: Obj = {}
  private readonly key: Buffer | null
  /** The secret as given, when it can also be PocketBase's key (32 bytes): the row is then PocketBase's. */
  private readonly pbKey: string | null
  private readonly lock = new Mutex()
  private readonly saveHandlers = new Set<SettingsSaveHandler>()
  private readonly applyHandlers = new Set<(settings: Settings) => void>()

  /**
   * @param db the database of `_params`
   * @param events the bus a `{kind: 'settings'}` event goes to after each change
   * @param encryptionKey any non-empty secret string; when set, the stored row is encrypted
   * @param groups the groups to start with (core's by default), or a table to share: a table
   *   that outlives this service (one per app) keeps the groups features registered when the
   *   app opens its store again
   */
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    encryptionKey?: string,
    groups: SettingsRegistry | Iterable<SettingsGroup> = CORE_SETTINGS_GROUPS,
  ) {
    this.key = encryptionKey ? deriveKey(encryptionKey) : null
    this.pbKey = encryptionKey && pocketBaseCipher.fits(encryptionKey) ? encryptionKey : null
    this.registry = groups instanceof SettingsRegistry ? groups : new SettingsRegistry(groups)
    this.current = this.registry.defaults()
  }

  /** Adds a handler run inside every save's transaction (see `SettingsSaveHandler`); returns its removal. */
  onSave(fn: SettingsSaveHandler): () => void {
    this.saveHandlers.add(fn)
    return () => this.saveHandlers.delete(fn)
  }

  /**
   * Adds a handler run synchronously once a change is stored, before `update` resolves (so
   * before the PATCH that made it is answered: SPEC §4.7 rule 2), e.g. the automatic backup job
   * following `backups.cron`. The `settings` event on the bus follows a tick later (and is the
   * only signal of a change made by another instance). A handler reports its own failures: one
   * that throws does not undo the change. Returns its removal.
   */
  onApply(fn: (settings: Settings) => void): () => void {
    this.applyHandlers.add(fn)
    return () => this.applyHandlers.delete(fn)
  }

  /** True when the stored settings are (or will be, on the next save) encrypted. */
  get encrypted(): boolean {
    return this.key !== null
  }

  /**
   * Adds a feature's settings group at the end of the table, before or after `load`: its value
   * is read from the stored row (or its defaults), it is validated on every PATCH, and its
   * write-only keys are left out of what is returned. Throws when the key is taken.
   * NB: call it while the app starts, before settings can change.
   */
  registerGroup<T>(group: SettingsGroup<T>): void {
    this.registry.register(group)
    const value = overlayStored({ [group.key]: group.defaults() }, this.stored)[group.key]
    const next: Obj = { ...this.current }
    define(next, group.key, value)
    this.current = next as unknown as Settings
  }

  /**
   * Loads the stored settings over the defaults. Throws `SettingsLoadError` when the row is
   * encrypted and no key (or another key) was given, or when it is not valid JSON. A plaintext
   * row is read as is with a key too; the next save encrypts it.
   */
  async load(): Promise<void> {
    const value = await readParam(this.db, SETTINGS_PARAM)
    this.stored = value ? this.decode(value) : {}
    this.current = this.registry.overlay(this.stored)
  }

  /**
   * Parses a stored row: a JSON object, a JSON string holding svcbase's encrypted JSON object, or
   * PocketBase's encrypted row (its base64 text as it is).
   */
  private decode(stored: string): Obj {
    // NB: PocketBase writes the row as a BLOB: its bytes are the same text.
    const value = String(stored)
    if (/^[A-Za-z0-9+/]+=*$/.test(value.trim()) && !/^(true|false|null|\d+)$/.test(value.trim()))
      return this.decodePocketBase(value.trim())
    let parsed = parseStored(value)
    if (typeof parsed === 'string' && isEncrypted(parsed)) {
      if (!this.key)
        throw new SettingsLoadError(
          'The stored settings are encrypted: start the app with the encryption key they were saved with (SVC_ENCRYPTION_KEY).',
        )
      let plain: string
      try {
        plain = decrypt(parsed, this.key)
      } catch (err) {
        throw new SettingsLoadError(
          'Cannot decrypt the stored settings: the encryption key (SVC_ENCRYPTION_KEY) is not the one they were saved with, or the data is corrupted.',
          err,
        )
      }
      parsed = parseStored(plain)
    }
    if (!isObject(parsed)) throw new SettingsLoadError('The stored settings are not a JSON object.')
    return parsed
  }

  /** PocketBase's encrypted row, opened with the key as PocketBase uses it. */
  private decodePocketBase(value: string): Obj {
    if (!this.pbKey)
      throw new SettingsLoadError(
        'The stored settings are encrypted by PocketBase: start the app with its 32-character encryption key (--encryptionEnv=PB_ENCRYPTION_KEY, the variable PocketBase read).',
      )
    let plain: string
    try {
      plain = pocketBaseCipher.decrypt(value, this.pbKey)
    } catch (err) {
      throw new SettingsLoadError(
        'Cannot decrypt the stored settings: the encryption key is not the one PocketBase saved them with, or the data is corrupted.',
        err,
      )
    }
    const parsed = parseStored(plain)
    if (!isObject(parsed)) throw new SettingsLoadError('The stored settings are not a JSON object.')
    return parsed
  }

  /** The current settings (do not mutate). */
  get(): Settings {
    return this.current
  }

  /** Every write-only key of the registered groups, as dotted paths (`smtp.password`). */
  secretPaths(): string[] {
    return this.registry.secretPaths()
  }

  /** A deep copy of `settings` (the current ones by default) without the write-only keys. */
  withoutSecrets(settings: Settings = this.current): Record<string, unknown> {
    return this.registry.withoutSecrets(settings)
  }

  /**
   * Validates a change with every registered group: `patch` as sent (unknown groups and keys
   * are refused) and `next`, the patch merged onto the current settings. Empty when valid.
   */
  validate(
    patch: Record<string, unknown>,
    next: unknown,
    ctx: SettingsValidationContext,
  ): ValidationErrors {
    return this.registry.validate(patch, next, ctx)
  }

  /**
   * Deep-merges a patch onto the current settings (arrays replace; an omitted key keeps its
   * value), lets `check` refuse the result, stores it and returns it. Updates run one at a
   * time, so two concurrent patches never lose each other's keys. Stored groups that no
   * registered group reads are written back as they were, so they survive a run without them.
   */
  async update(patch: Record<string, unknown>, check?: SettingsCheck): Promise<Settings> {
    return this.lock.runExclusive(async () => {
      const next = deepMerge(this.current as unknown as Obj, patch) as unknown as Settings
      check?.(next)
      const row: Obj = { ...next }
      for (const [k, v] of Object.entries(this.stored))
        if (!Object.hasOwn(row, k)) define(row, k, v)
      const json = JSON.stringify(row)
      // A key PocketBase can use too writes PocketBase's row, so the folder opens in either.
      const value = this.pbKey
        ? pocketBaseCipher.encrypt(json, this.pbKey)
        : this.key
          ? JSON.stringify(encrypt(json, this.key))
          : json
      await this.db.transaction(async (tx) => {
        await writeParam(tx, SETTINGS_PARAM, value)
        for (const fn of this.saveHandlers) await fn(tx)
      })
      this.stored = row
      this.current = next
      for (const fn of this.applyHandlers) {
        try {
          fn(next)
        } catch {
          // NB: a handler reports its own failures; the change is stored either way.
        }
      }
      this.events.publish({ kind: 'settings' })
      return next
    })
  }
}
