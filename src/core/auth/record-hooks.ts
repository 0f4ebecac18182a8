/**
 * The built-in record hooks of auth collections, bound once when the App is built
 * (`bindAuthRecordHooks`). Each lives with the module that owns its concern; their ids start
 * with `__svcAuth`, so a user handler can be placed around one (priority) or replace it (id).
 *
 * | id                               | hook                 | priority            |
 * | -------------------------------- | -------------------- | ------------------- |
 * | `__svcAuthTokenKeyRotation`      | `onRecordUpdate`     | `BEFORE_USER_HOOKS` |
 * | `__svcAuthSingleUseToken`        | `onRecordUpdate`     | `BEFORE_USER_HOOKS` |
 * | `__svcAuthApiKeyRevocation`      | `onRecordUpdate`     | `AFTER_USER_HOOKS`  |
 * | `__svcAuthVerifiedUnlink`        | `onRecordUpdate`     | `AFTER_USER_HOOKS`  |
 * | `__svcAuthApiKeySecretRevocation`| `onCollectionUpdate` | `AFTER_USER_HOOKS`  |
 * | `__svcAuthLastSuperuser`         | `onRecordDelete`     | `BEFORE_USER_HOOKS` |
 * | `__svcAuthCascade<table>`        | `onRecordDelete`     | `AFTER_USER_HOOKS`  |
 *
 * The checks that answer together with field errors (`oldPassword`, `passwordConfirm`, what only
 * managers may change) are not hooks: see `core/records/auth-rules.ts`.
 */
import type { App } from '../app.js'
import { bindApiKeyCascade, bindApiKeyRevocation } from './api-keys.js'
import { bindAuthCascade, bindVerifiedUnlink } from './cascade.js'
import { bindSignInCascades } from './flow.js'
import { bindOtpCascade } from './otp.js'
import { bindSingleUseChecks } from './single-use.js'
import { bindLastSuperuserGuard } from './superusers.js'
import { bindTokenKeyRotation } from './tokens.js'

/** Binds every built-in auth record hook on `app.hooks`; returns `app`. */
export function bindAuthRecordHooks<A extends App>(app: A): A {
  bindTokenKeyRotation(app)
  bindSingleUseChecks(app)
  bindLastSuperuserGuard(app)
  bindOtpCascade(app)
  bindApiKeyCascade(app)
  bindApiKeyRevocation(app)
  bindSignInCascades(app)
  // NB: the OAuth2 links stay bound here, so they go with their record (and are dropped when
  // its email is proven) even when the oauth2 feature is disabled.
  bindAuthCascade(app, '_externalAuths')
  bindVerifiedUnlink(app, '_externalAuths')
  return app
}
