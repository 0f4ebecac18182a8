/**
 * What other features may ask of realtime without importing it: push a named event to one
 * connected SSE client (the LLM gateway's `llm_chunk` / `llm_done` / `llm_error`, SPEC §6; the
 * OAuth2 redirect's `@oauth2` message), and learn who owns a client.
 * The realtime feature's `register` returns an implementation; the composition root hands it on.
 *
 * A client's stream lives on one instance. When several instances share the data (`serve
 * --workers`, several machines on PostgreSQL) and the client is not on this one, each call is
 * asked of the others (`Cluster.requests`) and the instance holding the stream answers it with
 * the same checks; for a client of this instance the answer is immediate (resolved promises).
 */
export interface ClientMessenger {
  /**
   * Sends `event` with `data` (serialised as JSON) to the client `clientId`. Resolves false when
   * no instance holds such a client, or it was just dropped as too slow. Calls for one client
   * arrive in call order, also from another instance, without the caller awaiting each one.
   * Throws (synchronously) when `event` holds a line break; never rejects.
   */
  sendToClient(clientId: string, event: string, data: unknown): Promise<boolean>
  /**
   * Who owns the client `clientId`: the auth record bound by its last authorised subscription
   * request, `null` for a guest client, undefined when no instance holds such a client (so a
   * feature can refuse to push to another caller's connection). Never rejects.
   */
  clientOwner(clientId: string): Promise<ClientOwner | null | undefined>
  /**
   * When the client `clientId` is connected, subscribed to `topic` and (when `ip` is given)
   * opened its stream from `ip`: drops that subscription and resolves true (the OAuth2 redirect
   * hands a code to the client waiting on `@oauth2` once: of two concurrent calls, on any
   * instances, one only gets true). False otherwise. Never rejects.
   */
  takeSubscription(clientId: string, topic: string, ip?: string): Promise<boolean>
}

/** The auth record bound to a realtime client. */
export interface ClientOwner {
  collectionId: string
  recordId: string
}
