/**
 * What a `*.pb.js` script meets past the subset: every other name of PocketBase's JSVM is a stub
 * that throws `"<name>" is not supported…`, so a script learns which call it is, with the line.
 * Most such uses already fail the file's load (`load-check.ts` scans its text); the stubs catch
 * what a scan cannot see (a member of a value, a name built at run time).
 */
import { messages } from '../../../core/errors.js'

/**
 * The error of a call outside the subset, or of one this store cannot serve (a 500 at run time:
 * the script needs what svcbase lacks, not a client mistake).
 */
export class PbUnsupportedError extends Error {
  constructor(
    readonly apiName: string,
    message: string = messages.pbUnsupported({ name: apiName }),
  ) {
    super(message)
    this.name = 'PbUnsupportedError'
  }
}

/** Names every script object answers without being a field (inspection, promises, JSON). */
const transparent = new Set<PropertyKey>([
  'then',
  'toJSON',
  'constructor',
  'valueOf',
  'toString',
  'inspect',
  'asymmetricMatch',
  '$$typeof',
  'nodeType',
])

/** True for keys a proxy lets through to its target (symbols and the names above). */
export function isTransparent(key: PropertyKey): boolean {
  return typeof key === 'symbol' || transparent.has(key)
}

/**
 * Wraps a script-facing object: reading a name it lacks throws `"<label>.<name>" is not
 * supported…`; writing adds to the object (scripts keep their own state on events).
 */
export function strict<T extends object>(label: string, target: T): T {
  return new Proxy(target, {
    get(t, key, receiver) {
      if (key in t || isTransparent(key)) return Reflect.get(t, key, receiver) as unknown
      throw new PbUnsupportedError(`${label}.${String(key)}`)
    },
  })
}

/** A global object of PocketBase's JSVM that svcbase lacks: every member throws. */
function unsupportedObject(label: string): object {
  return strict(label, {})
}

/** The stubs made below: a context global still one of them is not offered. */
const stubs = new WeakSet<object>()

/** True for a stub of a PocketBase global svcbase lacks. */
export function isStub(v: unknown): boolean {
  return typeof v === 'function' && stubs.has(v)
}

/** A global function or class of PocketBase's JSVM that svcbase lacks: calling it throws. */
function unsupportedFunction(name: string): () => never {
  const fn = function unsupported(): never {
    throw new PbUnsupportedError(name)
  }
  stubs.add(fn)
  return fn
}

/** PocketBase's global objects that svcbase does not offer (`$os` and `$apis` are partial). */
const OBJECTS = ['$filesystem', '$mails', '$dbx', '$tokens', '$inflector', '__hooks']

/**
 * PocketBase's global functions and classes; one a context offers replaces its stub (and is
 * then not checked at load).
 */
const FUNCTIONS = [
  'sleep',
  'arrayOf',
  'readerToString',
  'toBytes',
  'unmarshal',
  'migrate',
  'routerRemove',
  'DynamicModel',
  'Context',
  'Collection',
  'FieldsList',
  'Field',
  'NumberField',
  'BoolField',
  'TextField',
  'URLField',
  'EmailField',
  'EditorField',
  'PasswordField',
  'DateField',
  'AutodateField',
  'JSONField',
  'RelationField',
  'SelectField',
  'FileField',
  'GeoPointField',
  'MailerMessage',
  'Command',
  'RequestInfo',
  'DateTime',
  'ValidationError',
  'Cookie',
  'SubscriptionMessage',
  'Middleware',
  'Timezone',
  'BackupFileInfo',
  'MFA',
  'OTP',
  'ExternalAuth',
  'AuthOrigin',
  'Log',
  'Settings',
  // `$http.send`'s multipart body: not offered (a string body is)
  'FormData',
]

/**
 * PocketBase's hook registrations; those svcbase offers (`bindings.ts`) replace their stub in
 * a file's context and are not checked at load (`index.ts`), as the functions above. `onServe`
 * is not one: PocketBase's JSVM has no such global (a call is `ReferenceError: onServe is not
 * defined`, here too).
 */
const HOOKS = [
  'onBootstrap',
  'onTerminate',
  'onBackupCreate',
  'onBackupRestore',
  'onModelValidate',
  'onModelCreate',
  'onModelCreateExecute',
  'onModelAfterCreateSuccess',
  'onModelAfterCreateError',
  'onModelUpdate',
  'onModelUpdateExecute',
  'onModelAfterUpdateSuccess',
  'onModelAfterUpdateError',
  'onModelDelete',
  'onModelDeleteExecute',
  'onModelAfterDeleteSuccess',
  'onModelAfterDeleteError',
  'onRecordEnrich',
  'onRecordValidate',
  'onRecordCreateExecute',
  'onRecordAfterCreateError',
  'onRecordUpdateExecute',
  'onRecordAfterUpdateError',
  'onRecordDeleteExecute',
  'onRecordAfterDeleteError',
  'onCollectionValidate',
  'onCollectionCreate',
  'onCollectionCreateExecute',
  'onCollectionAfterCreateSuccess',
  'onCollectionAfterCreateError',
  'onCollectionUpdate',
  'onCollectionUpdateExecute',
  'onCollectionAfterUpdateSuccess',
  'onCollectionAfterUpdateError',
  'onCollectionDelete',
  'onCollectionDeleteExecute',
  'onCollectionAfterDeleteSuccess',
  'onCollectionAfterDeleteError',
  'onMailerSend',
  'onMailerRecordAuthAlertSend',
  'onMailerRecordPasswordResetSend',
  'onMailerRecordVerificationSend',
  'onMailerRecordEmailChangeSend',
  'onMailerRecordOTPSend',
  'onRealtimeConnectRequest',
  'onRealtimeSubscribeRequest',
  'onRealtimeMessageSend',
  'onRecordAuthRequest',
  'onRecordAuthWithPasswordRequest',
  'onRecordAuthWithOAuth2Request',
  'onRecordAuthRefreshRequest',
  'onRecordRequestPasswordResetRequest',
  'onRecordConfirmPasswordResetRequest',
  'onRecordRequestVerificationRequest',
  'onRecordConfirmVerificationRequest',
  'onRecordRequestEmailChangeRequest',
  'onRecordConfirmEmailChangeRequest',
  'onRecordRequestOTPRequest',
  'onRecordAuthWithOTPRequest',
  'onCollectionsListRequest',
  'onCollectionViewRequest',
  'onCollectionCreateRequest',
  'onCollectionUpdateRequest',
  'onCollectionDeleteRequest',
  'onCollectionsImportRequest',
  'onSettingsListRequest',
  'onSettingsUpdateRequest',
  'onSettingsReload',
  'onFileDownloadRequest',
  'onFileTokenRequest',
  'onBatchRequest',
  'onCronJobExecute',
]

/** PocketBase's global functions, classes and hooks (less those offered: checked at load). */
export const MISSING_CALLS: readonly string[] = [...FUNCTIONS, ...HOOKS]

/** The stubs of every PocketBase global outside the subset, by name. */
export function unsupportedGlobals(): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const name of OBJECTS) out[name] = unsupportedObject(name)
  for (const name of [...FUNCTIONS, ...HOOKS]) out[name] = unsupportedFunction(name)
  return out
}
