/**
 * Field error entries of the auth flows (src/core/auth), the settings groups (src/core/settings
 * and the features' own groups) and the features' request bodies.
 */
import type { Entry } from './catalogue.js'

/** Field error entries of auth flows, settings and feature requests. */
export const authCodes = {
  // auth flows
  validation_invalid_old_password: 'Missing or invalid old password.',
  validation_invalid_password: 'Missing or invalid auth record password.',
  validation_invalid_token: 'Invalid or expired token.',
  validation_token_collection_mismatch: 'The provided token is for different auth collection.',
  validation_invalid_token_claims: 'Missing email token claim.',
  validation_token_email_mismatch:
    "The record email doesn't match with the requested token claims.",
  validation_invalid_new_email: 'Invalid new email address.',
  validation_invalid_token_payload: 'Invalid token payload - newEmail must be set.',
  validation_invalid_token_email: 'The new email address is invalid.',
  validation_setup_done: 'A superuser already exists.',
  // settings groups
  validation_is_hex_color: 'Must be a valid hexadecimal color code.',
  validation_conflicting_rate_limit_rule:
    'Rate limit rule configuration with label {label} already exists or conflicts with another rule.',
  'validation_match_invalid:header_name': 'Must be a valid HTTP header name.',
  validation_invalid_cron:
    'Invalid cron expression - must be a valid macro or to have exactly 5 space separated segments.',
  'validation_invalid_cron:segment':
    'Invalid segment value - must be between the min and max of the segment.',
  'validation_invalid_value:ip_list': 'Must be a list of IPs or CIDR subnets.',
  validation_invlaid_ip_or_subnet: 'Invalid IP or CIDR subnet.',
  'validation_match_invalid:phone': 'Must be a phone number in E.164 format such as +14155550100.',
  'validation_match_invalid:push_subject': 'Must be a mailto: address or an https: URL.',
  'validation_match_invalid:bundle_id': 'Must be a bundle identifier such as com.example.app.',
  validation_missing_collection: 'Must be the name of an existing collection.',
  'validation_in_invalid:push_actions':
    'Must be a comma-separated subset of create, update, delete.',
  validation_invalid_vapid_key: 'Must be an unpadded base64url P-256 private key (32 bytes).',
  'validation_invalid_vapid_key:public':
    'Must be an unpadded base64url P-256 public key (65 bytes, uncompressed).',
  validation_vapid_key_mismatch: 'The private key does not belong to the public key.',
  'validation_invalid_json:file': 'Must be valid JSON.',
  validation_invalid_service_account:
    'Must be a service account key file with project_id, client_email and private_key.',
  validation_invalid_key: 'Must be a PEM-encoded P-256 private key (the contents of the .p8 file).',
  // feature requests
  validation_invalid_auth_collection: 'Must be a valid auth collection id or name.',
} as const satisfies Record<string, Entry>
