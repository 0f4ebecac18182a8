/**
 * The built-in record hooks of auth collections, bound once when the App is built
 * (`bindAuthRecordHooks`). Each lives with the module that owns its concern; their ids start
 * with `__svcAuth`, so a user handler can be placed around one (priority) or replace it (id).
 *
 * | id                               | hook             | priority            |
 * | -------------------------------- | ---------------- | ------------------- |
 * | `__svcAuthTokenKeyRotation`      | `onRecordUpdate` | `BEFORE_USER_HOOKS` |
 * | `__svcAuthLastSuperuser`         | `onRecordDelete` | `BEFORE_USER_HOOKS` |
 * | `__svcAuthCascade<table>`        | `onRecordDelete` | `AFTER_USER_HOOKS`  |
 *
 * The checks that answer together with field errors (`oldPassword`, `passwordConfirm`, what only
 * managers may change) are not hooks: see `core/records/auth-rules.ts`.
 */
import type { App } from '../app.js'
import { bindApiKeyCascade } from './api-keys.js'
import { bindAuthCascade } from './cascade.js'
import { bindSignInCascades } from './flow.js'
import { bindOtpCascade } from './otp.js'
import { bindLastSuperuserGuard } from './superusers.js'
import { bindTokenKeyRotation } from './tokens.js'

/** Binds every built-in auth record hook on `app.hooks`; returns `app`. */
export function bindAuthRecordHooks<A extends App>(app: A): A {
  bindTokenKeyRotation(app)
  bindLastSuperuserGuard(app)
  bindOtpCascade(app)
  bindApiKeyCascade(app)
  bindSignInCascades(app)
  // NB: the OAuth2 links stay bound here, so they go with their record even when the oauth2
  // feature is disabled.
  bindAuthCascade(app, '_externalAuths')
  return app
}
