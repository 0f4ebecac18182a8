import { ApiError } from '../../core/errors.js'
import type { Feature } from '../../http/feature.js'
import { ClusterCounterStore } from './cluster-counters.js'
import { MemoryCounterStore, type CounterStore } from '../../tools/counter-store.js'
import { isApiPath, RateLimiter } from './limiter.js'
import { limiterRequest, urlPath } from './request.js'

export {
  MemoryCounterStore,
  type CounterStore,
  type CounterHit,
} from '../../tools/counter-store.js'
export { RateLimiter, type RateLimitDecision, type RateLimitRequest } from './limiter.js'
export { compileRules, selectRule, type RateLimitRule, type RateLimitTarget } from './rules.js'

/** Options of the rate-limit feature. */
export interface RateLimitOptions {
  /**
   * A shared counter store (several instances); the caller owns and closes it. By default an
   * in-memory store is made, pruned by a job of the app's scheduler.
   */
  store?: CounterStore
}

/** The id of the job pruning the expired windows of the in-memory counter store. */
export const PRUNE_JOB_ID = '__svcRateLimitPrune__'

/**
 * Rate limiting (SPEC §2.7, §8; reference §10): when `settings.rateLimits.enabled`, every request
 * under `/api/` (never `/metrics`, never an OPTIONS preflight) is counted per client IP against
 * the single most specific matching rule, and answered 429 `Too Many Requests.` with a
 * `Retry-After` header once over the rule's `maxRequests` within its `duration`. Superusers and
 * `excludedIPs` are exempt. Runs after the auth hook of `createHttp` and before the body is read.
 */
export function rateLimitFeature(options: RateLimitOptions = {}): Feature {
  return {
    name: 'rate-limit',
    register: ({ app, http }) => {
      let store = options.store
      if (!store) {
        // NB: no timer of its own: expired windows are pruned every minute while the app serves.
        const memory = new MemoryCounterStore({ pruneIntervalMs: 0 })
        app.cron.add(PRUNE_JOB_ID, '* * * * *', () => memory.prune())
        // Shared counters when the cluster has them (`serve --workers`, PostgreSQL).
        store = new ClusterCounterStore(app, memory)
      }
      const limiter = new RateLimiter(app, store)

      // NB: a callback hook, so the common case (limits off) costs no promise.
      http.addHook('onRequest', (req, reply, done) => {
        if (!limiter.enabled) return done()
        const path = urlPath(req.url)
        if (req.method === 'OPTIONS' || !isApiPath(path)) return done()
        limiter.check(limiterRequest(app, req, path)).then((decision) => {
          if (!decision || decision.allowed) return done()
          const seconds = Math.max(1, Math.ceil((decision.resetAt - Date.now()) / 1000))
          void reply.header('Retry-After', String(seconds))
          done(new ApiError(429))
        }, done)
      })
    },
  }
}
