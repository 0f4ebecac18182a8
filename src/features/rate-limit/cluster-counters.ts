import type { App } from '../../core/app.js'
import type { CounterHit, CounterStore } from '../../tools/counter-store.js'

/**
 * The counter store of the rate limiter when the app may share its data with other instances:
 * each hit goes to the cluster's shared counters (`app.cluster.counters`: the primary process of
 * `serve --workers`, or PostgreSQL) when the cluster has them, else to this process's own store.
 * The limiter only counts when limits are enabled, so a disabled limiter never reaches here.
 */
export class ClusterCounterStore implements CounterStore {
  constructor(
    private readonly app: App,
    private readonly local: CounterStore,
  ) {}

  /** The cluster's counters while the app is bootstrapped, else null. */
  private get shared() {
    return this.app.isBootstrapped ? this.app.cluster.counters : null
  }

  hit(key: string, windowMs: number): Promise<CounterHit> {
    return (this.shared ?? this.local).hit(key, windowMs)
  }

  async reset(): Promise<void> {
    await this.shared?.reset()
    await this.local.reset()
  }

  /** Closes the local store only: the cluster's counters belong to the cluster. */
  close(): Promise<void> {
    return this.local.close()
  }
}
