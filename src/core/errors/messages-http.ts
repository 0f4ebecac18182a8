/**
 * Top-level messages of the HTTP edge (default texts per status, body reading) and of the
 * features that are not records or auth: batch, realtime, settings, storage, mail, logs.
 */
import type { Args, Entry } from './catalogue.js'

const unreadable = 'Failed to read the submitted data:'
const batchUnreadable = 'Failed to read the submitted batch data:'

/** Messages of the HTTP edge and the service features. */
export const httpMessages = {
  // default texts per status (reference §0.4)
  somethingWentWrong: 'Something went wrong while processing your request.',
  missingAuth: 'Missing or invalid authentication.',
  notAllowed: 'You are not allowed to perform this request.',
  notFound: "The requested resource wasn't found.",
  /** An unknown GET or HEAD: PocketBase answers it from its file server. */
  fileNotFound: 'File not found.',
  tooLarge: 'Request entity too large.',
  tooManyRequests: 'Too Many Requests.',
  requestFailed: 'Request failed.',
  notBuilt: ({ feature }: Args<'feature'>) =>
    `${feature}: not built yet in svcbase (see the README, "Not built yet").` as const,
  dashboardNotBuilt:
    'The dashboard is not built: run "npm run build" (it builds dist/ui with Vite), then start again.',
  // reading requests
  malformedRequest: 'Malformed request.',
  headersTooLarge: 'Request header fields too large.',
  requestTimedOut: 'The request took too long to arrive.',
  tooManyConnections: 'Too many open connections from this address.',
  unsupportedContentType: 'Unsupported Content-Type.',
  bodyUnreadable: ({ reason }: Args<'reason'>) => `${unreadable} ${reason}` as const,
  bodyTooDeep: ({ max }: Args<'max'>) =>
    `${unreadable} the JSON body is nested deeper than ${max} levels.` as const,
  payloadTooDeep: ({ max }: Args<'max'>) =>
    `${unreadable} @jsonPayload is nested deeper than ${max} levels.` as const,
  bodyInvalidJson: ({ reason }: Args<'reason'>) =>
    `${unreadable} invalid JSON (${reason}).` as const,
  payloadInvalidJson: ({ reason }: Args<'reason'>) =>
    `${unreadable} @jsonPayload is not valid JSON (${reason}).` as const,
  payloadNotObject: `${unreadable} @jsonPayload must be a JSON object.`,
  bodyNotObject: `${unreadable} the body must be a JSON object.`,
  multipartNoBoundary: `${unreadable} multipart/form-data without a boundary parameter.`,
  multipartTruncated: `${unreadable} malformed multipart body (it ends before the closing boundary).`,
  multipartStalled: ({ seconds }: Args<'seconds'>) =>
    `${unreadable} the multipart body stopped arriving (no data for ${seconds} s).` as const,
  multipartAborted: `${unreadable} the connection closed before the multipart body ended.`,
  multipartMalformed: ({ reason }: Args<'reason'>) =>
    `${unreadable} malformed multipart body (${reason}).` as const,
  multipartExpected: `${unreadable} expected multipart/form-data.`,
  invalidFields: ({ reason }: { reason: `${string} in "${string}` }) => reason,
  validationFailed: 'An error occurred while validating the submitted data.',
  loadFailed: 'An error occurred while loading the submitted data.',
  formatLoadFailed: 'Failed to load the submitted data due to invalid formatting.',
  // batch
  batchNotAllowed: 'Batch requests are not allowed.',
  batchInvalid: 'Invalid batch request data.',
  batchRequestsNotArray: `${batchUnreadable} requests must be an array.`,
  batchNotObject: ({ path }: Args<'path'>) =>
    `${batchUnreadable} ${path} must be an object.` as const,
  batchNotString: ({ path }: Args<'path'>) =>
    `${batchUnreadable} ${path} must be a string.` as const,
  batchUnknownAction: ({ method, url }: Args<'method' | 'url'>) =>
    `Unknown batch request action: ${method} ${url}.` as const,
  batchFailed: 'Batch transaction failed.',
  batchItemFailed: 'Batch request failed.',
  // realtime
  realtimeClientMissing: 'Missing or invalid client id.',
  realtimeClientInvalid: 'Invalid realtime client.',
  realtimeAuthMismatch: "The current and the previous request authorization don't match.",
  realtimeTooManyStreams: 'Too many open realtime connections from this address.',
  realtimeBadSubscription: ({ name, reason }: Args<'name' | 'reason'>) =>
    `Invalid subscription "${name}": ${reason}.` as const,
  // settings, storage, mail, logs, Apple
  settingsSaveFailed: 'An error occurred while saving the new settings.',
  s3TestFailed: 'Failed to test the S3 filesystem.',
  s3NotEnabled: ({ filesystem }: Args<'filesystem'>) =>
    `S3 ${filesystem} filesystem is not enabled.` as const,
  s3TestRawError: ({ raw }: Args<'raw'>) =>
    `Failed to test the S3 filesystem. Raw error: \n${raw}` as const,
  testEmailFailed: 'Failed to send the test email.',
  testEmailRawError: ({ raw }: Args<'raw'>) =>
    `Failed to send the test email. Raw error: \n${raw}` as const,
  logsStatsFailed: 'Failed to generate logs stats.',
  appleSecretInvalid: 'Invalid client secret data.',
  appleSecretRawError: ({ raw }: Args<'raw'>) =>
    `Failed to generate client secret. Raw error: \n${raw}` as const,
} as const satisfies Record<string, Entry>
