import { OtpAttempts } from '../../core/auth/otp.js'
import { ResendGuard } from '../../core/auth/token-flows.js'
import type { Feature } from '../../http/feature.js'
import { authCollectionResolver, type AuthRouteContext } from './context.js'
import * as authMethods from './routes/auth-methods.js'
import * as authRefresh from './routes/auth-refresh.js'
import * as authWithPassword from './routes/auth-with-password.js'
import * as emailChange from './routes/email-change.js'
import * as impersonate from './routes/impersonate.js'
import * as otp from './routes/otp.js'
import * as passwordReset from './routes/password-reset.js'
import * as verification from './routes/verification.js'

/** The auth feature: the auth endpoints of reference §1 for every auth collection. */
export function authFeature(): Feature {
  return {
    name: 'auth',
    register: ({ app, http }) => {
      const ctx: AuthRouteContext = {
        app,
        resend: new ResendGuard(),
        otpAttempts: new OtpAttempts(),
        authCollection: authCollectionResolver(app),
      }
      for (const routes of [
        authMethods,
        authWithPassword,
        authRefresh,
        otp,
        verification,
        passwordReset,
        emailChange,
        impersonate,
      ]) {
        routes.register(http, ctx)
      }
    },
  }
}
