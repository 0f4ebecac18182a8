/**
 * What other features may ask of realtime without importing it: push a named event to one
 * connected SSE client (the LLM gateway's `llm_chunk` / `llm_done` / `llm_error`, SPEC §6), and
 * learn who owns a client.
 * The realtime feature's `register` returns an implementation; the composition root hands it on.
 */
export interface ClientMessenger {
  /**
   * Sends `event` with `data` (serialised as JSON) to the client `clientId`. Returns false when
   * no such client is connected to this instance, or it was just dropped as too slow. Throws
   * when `event` holds a line break.
   */
  sendToClient(clientId: string, event: string, data: unknown): boolean
  /**
   * Who owns the client `clientId`: the auth record bound by its last authorised subscription
   * request, `null` for a guest client, undefined when no such client is connected to this
   * instance (so a feature can refuse to push to another caller's connection).
   */
  clientOwner(clientId: string): ClientOwner | null | undefined
  /**
   * When the client `clientId` is connected, subscribed to `topic` and (when `ip` is given)
   * opened its stream from `ip`: drops that subscription and returns true (the OAuth2 redirect
   * hands a code to the client waiting on `@oauth2` once). False otherwise.
   */
  takeSubscription(clientId: string, topic: string, ip?: string): boolean
}

/** The auth record bound to a realtime client. */
export interface ClientOwner {
  collectionId: string
  recordId: string
}
