/**
 * Messages of OAuth2 / OpenID Connect sign-in (`features/oauth2`): the sign-in refusals in
 * PocketBase's wording where it has one, the ID token checks, and the provider configuration.
 */
import type { Entry } from './catalogue.js'

/** Top-level messages of OAuth2 sign-in. */
export const oauth2Messages = {
  oauth2NotAllowed: 'The collection is not configured to allow OAuth2 authentication.',
  oauth2TokenFailed: 'Failed to fetch OAuth2 token.',
  oauth2UserFailed: 'Failed to fetch OAuth2 user.',
  oauth2IdTokenSignature: 'Failed to verify the OAuth2 ID token: invalid signature.',
  oauth2IdTokenAudience: 'Failed to verify the OAuth2 ID token: it was issued for another client.',
  oauth2IdTokenIssuer: 'Failed to verify the OAuth2 ID token: unexpected issuer.',
  oauth2IdTokenExpired: 'Failed to verify the OAuth2 ID token: it has expired.',
  oauth2IdTokenNonce: 'Failed to verify the OAuth2 ID token: the nonce does not match.',
  oauth2IdTokenInvalid: 'Failed to verify the OAuth2 ID token.',
  oauth2IdTokenMissing: 'The OAuth2 provider returned no ID token.',
  oauth2SubjectMismatch: 'The OAuth2 user info belongs to another subject than the ID token.',
  oauth2MissingUserId: 'The OAuth2 provider returned no user id.',
  oauth2EmailTaken:
    'An account with this email already exists and the OAuth2 provider has not verified the email: sign in to that account first to link the provider.',
  oauth2SuperuserSignUp: 'Superusers cannot be created through OAuth2 sign-in.',
  oauth2CreateEmailMismatch:
    'The createData email differs from the email the OAuth2 provider verified: leave it out to sign up with the provider email.',
  oauth2DiscoveryFailed: 'Failed to fetch the OpenID Connect discovery document of the provider.',
  oauth2RedirectSuccess:
    'Authentication completed. You can close this window and go back to the app.',
  oauth2RedirectFailure: 'Authentication failed. You can close this window and try again.',
} as const satisfies Record<string, Entry>

/** Field error entries of OAuth2 sign-in and of the provider configuration. */
export const oauth2Codes = {
  validation_invalid_provider: 'Provider with name {name} is missing or is not enabled.',
  'validation_invalid_value:oauth2_provider_name':
    'Must be the name of a known provider (google, github, gitlab, microsoft, apple, discord, facebook, oidc, oidc2, oidc3) or come with authURL and tokenURL.',
  'validation_invalid_value:oauth2_discovery':
    'An OpenID Connect provider needs authURL and tokenURL, or extra.issuer for discovery.',
  'validation_invalid_value:oauth2_pkce': 'Must be a boolean or null.',
  'validation_in_invalid:oauth2_mapped_field': 'Must be the name of a field of the collection.',
} as const satisfies Record<string, Entry>
