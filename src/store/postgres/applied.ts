/**
 * `publishApplied` over the PostgreSQL bus: the message goes out with an `ack` id, in its turn
 * on the bus (so it keeps its order with plain messages), to the instances the heartbeat table
 * lists as alive at that moment (read in the same turn, just before the NOTIFY: an instance
 * counted there already LISTENs, see `bus.ts`). Each of them answers `applied` once its handlers
 * finished; the wait ends when all did, or after the timeout, naming the others.
 */
import { randomBytes } from 'node:crypto'
import type { AppliedOutcome, ClusterMessage } from '../cluster.js'
import type { EnvelopeBody } from './bus.js'
import type { LiveInstance } from './cluster-tables.js'

/** What the waits need from the cluster. */
export interface AppliedOptions {
  /** Sends an envelope (or what the function makes in its turn); false when it could not be. */
  post: (body: () => Promise<EnvelopeBody | null>) => Promise<boolean>
  /** The other instances alive now. */
  others: () => Promise<LiveInstance[]>
}

/** One wait in flight. */
interface Wait {
  /** The instances asked, once read; confirmations may arrive before. */
  asked: LiveInstance[] | null
  confirmed: Set<string>
  failed: Set<string>
  /** Checks whether every asked instance answered, and settles if so. */
  check: () => void
  finish: (error?: string) => void
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** How an instance is named in an outcome: its label (host and pid) and id. */
export function instanceName(i: LiveInstance): string {
  return i.label ? `${i.label} (${i.id})` : i.id
}

/** The waits of one cluster. */
export class PgApplied {
  private readonly waits = new Map<string, Wait>()

  constructor(private readonly options: AppliedOptions) {}

  /** See `Cluster.publishApplied`. */
  publish(message: ClusterMessage, timeoutMs: number): Promise<AppliedOutcome> {
    const id = randomBytes(8).toString('hex')
    return new Promise((resolve) => {
      const wait: Wait = {
        asked: null,
        confirmed: new Set(),
        failed: new Set(),
        check: () => {
          if (wait.asked?.every((i) => wait.confirmed.has(i.id) || wait.failed.has(i.id)))
            wait.finish()
        },
        finish: (error) => {
          clearTimeout(timer)
          this.waits.delete(id)
          const asked = wait.asked ?? []
          const answered = (i: LiveInstance) => wait.confirmed.has(i.id) || wait.failed.has(i.id)
          resolve({
            asked: asked.map(instanceName),
            late: error ? [] : asked.filter((i) => !answered(i)).map(instanceName),
            failed: asked.filter((i) => wait.failed.has(i.id)).map(instanceName),
            ...(error ? { error } : {}),
          })
        },
      }
      const timer = setTimeout(() => wait.finish(), timeoutMs)
      this.waits.set(id, wait)
      void this.options
        .post(async () => {
          wait.asked = await this.options.others()
          if (wait.asked.length === 0) return null
          return { message, ack: id }
        })
        .then((sent) => {
          if (!sent) wait.finish('the message could not be sent')
          else wait.check()
        })
    })
  }

  /** Another instance's confirmation. */
  onApplied(from: string, applied: unknown): void {
    if (!isObject(applied) || typeof applied.id !== 'string') return
    const wait = this.waits.get(applied.id)
    if (!wait) return
    if (applied.failed === true) wait.failed.add(from)
    else wait.confirmed.add(from)
    wait.check()
  }

  /** Settles every wait (the cluster closes): those not answered are late. */
  close(): void {
    for (const w of [...this.waits.values()]) w.finish()
  }
}
