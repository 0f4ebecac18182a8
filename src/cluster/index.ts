/**
 * `serve --workers N`: the primary process (`primary.ts`) and the IPC `Cluster` of its workers
 * (`ipc-cluster.ts`). This folder sits beside `server.ts` and `cli.ts`, at the top of the
 * dependency order.
 */
import cluster from 'node:cluster'
import { ENV, TAG } from './protocol.js'

export { IpcCluster } from './ipc-cluster.js'
export { runPrimary, type PrimaryOptions } from './primary.js'

/** The most worker processes `--workers` accepts. */
export const MAX_WORKERS = 64

/** This process's place in `serve --workers`. */
export interface WorkerRole {
  /** True in a worker process forked by the primary. */
  worker: boolean
  /** True in a process alone, or in the first worker of a start (it prints, automigrates). */
  first: boolean
}

/** The role of this process. */
export function workerRole(): WorkerRole {
  if (!cluster.isWorker) return { worker: false, first: true }
  return { worker: true, first: process.env[ENV.first] === '1' }
}

/** Tells the primary this worker serves (a no-op in a process alone). */
export function notifyReady(): void {
  if (cluster.isWorker && process.send && process.connected)
    process.send({ svc: TAG, type: 'ready' })
}
