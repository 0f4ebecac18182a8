/**
 * The messages between the primary process of `serve --workers N` and its workers, over Node's
 * IPC channel. Every message carries `svc: 'cluster'`, so nothing else on the channel is taken
 * for one.
 */
import type { AppliedOutcome, ClusterMessage, ClusterRecord } from '../store/cluster.js'

/** The tag of svcbase's cluster messages. */
export const TAG = 'svc-cluster'

/** A request a worker asks the primary, answered by a `reply` with the same `id`. */
export type WorkerRequest =
  | { op: 'claim'; jobId: string; at: number }
  | { op: 'hit'; key: string; windowMs: number }
  | { op: 'reset' }
  | { op: 'live' }
  | { op: 'forward'; topic: string; payload: ClusterRecord }
  /**
   * Relays `message` like a `publish` (in order with them) and answers an `AppliedOutcome` once
   * every other ready worker applied it, or after `timeoutMs`.
   */
  | { op: 'apply'; message: ClusterMessage; timeoutMs: number }

/** The answer of an `apply` request. */
export type ApplyAnswer = AppliedOutcome

/** What a worker sends. */
export type FromWorker =
  | { svc: typeof TAG; type: 'ready' }
  | { svc: typeof TAG; type: 'publish'; message: ClusterMessage }
  | { svc: typeof TAG; type: 'ask'; id: number; request: WorkerRequest }
  /** A worker's answer to a forwarded request (`value` absent: not held here). */
  | { svc: typeof TAG; type: 'answer'; id: number; value?: ClusterRecord }
  /** A worker applied the relayed message of `ack` (its handlers finished; `failed`: one threw). */
  | { svc: typeof TAG; type: 'applied'; ack: number; failed?: true }

/** What the primary sends. */
export type FromPrimary =
  /** Another worker's message; with `ack`, confirm with an `applied` once handled. */
  | { svc: typeof TAG; type: 'message'; message: ClusterMessage; ack?: number }
  | { svc: typeof TAG; type: 'reply'; id: number; value?: unknown; error?: string }
  /** Another worker's request, forwarded: answer with an `answer` of the same id. */
  | { svc: typeof TAG; type: 'request'; id: number; topic: string; payload: ClusterRecord }

/** True for a message of this protocol. */
export function isClusterMessage(m: unknown): m is { svc: typeof TAG; type: string } {
  return typeof m === 'object' && m !== null && (m as { svc?: unknown }).svc === TAG
}

/** The environment variables the primary gives its workers. */
export const ENV = {
  /** `1` for the first worker of a start (it migrates, prints, automigrates), else `0`. */
  first: 'SVC_WORKER_FIRST',
  /** How many workers the primary runs. */
  count: 'SVC_WORKERS',
  /** The one-time setup token every worker accepts (so `POST /api/setup` works on any). */
  setupToken: 'SVC_SETUP_TOKEN',
} as const
