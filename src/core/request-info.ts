import type { Collection } from './collections/model.js'

/** The value of `@request.context`. */
export type RequestContext =
  'default' | 'expand' | 'realtime' | 'protectedFile' | 'batch' | 'oauth2' | 'otp' | 'password'

/** A stored record as plain values: system fields plus the collection's own fields. */
export type RecordData = Record<string, unknown>

/** The authenticated caller: an auth record and its collection. */
export interface AuthInfo {
  record: RecordData
  collection: Collection
}

/**
 * Everything the domain knows about the request: built once per request at the HTTP edge and
 * passed to services and rules; never a Fastify object. *(PocketBase RequestInfo.)*
 */
export interface RequestInfo {
  auth: AuthInfo | null
  /** First value of each query parameter. */
  query: Record<string, string>
  /** Submitted body values after modifiers resolved. */
  body: Record<string, unknown>
  /** First value of each header, names lower-cased and snake_cased. */
  headers: Record<string, string>
  method: string
  context: RequestContext
  /** The client IP as decided by the proxy settings. */
  ip: string
}

/** The name of the superusers collection. */
export const SUPERUSERS = '_superusers'

/** True when the caller is a superuser. */
export function isSuperuser(info: RequestInfo | null | undefined): boolean {
  return info?.auth?.collection.name === SUPERUSERS
}

/** A RequestInfo for internal calls (CLI, jobs): no auth, no request values. */
export function internalRequest(overrides: Partial<RequestInfo> = {}): RequestInfo {
  return {
    auth: null,
    query: {},
    body: {},
    headers: {},
    method: 'GET',
    context: 'default',
    ip: '',
    ...overrides,
  }
}

/** Turns a header name into its `@request.headers.*` key (`X-Token` → `x_token`). */
export function headerKey(name: string): string {
  return name.toLowerCase().replace(/-/g, '_')
}
