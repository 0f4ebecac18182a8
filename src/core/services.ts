/**
 * The services registry of an app: what one feature offers the others (the mailer, the realtime
 * messenger, …) is set and looked up here by name, typed by {@link AppServices}, so no feature
 * imports another feature's files.
 */
import type { Mailer } from './mail.js'
import type { ClientMessenger } from './realtime.js'

/**
 * The services an app can hold, by name. Core declares the ones several features share; a
 * feature adds its own with declaration merging:
 *
 * ```ts
 * declare module '../../core/services.js' {
 *   interface AppServices {
 *     logs: LogsFeature
 *   }
 * }
 * ```
 */
export interface AppServices {
  /**
   * The mail backend. The app starts with the log backend; the mail feature replaces it with
   * one that follows `settings.smtp`.
   */
  mailer: Mailer
  /** Pushes named events to one realtime client of this instance (set by the realtime feature). */
  messenger: ClientMessenger
}

/** The name of a service. */
export type ServiceName = keyof AppServices

/** A typed map of services: `set` offers one, `get` finds it. */
export interface ServiceRegistry {
  /** Offers `service` under `name`, replacing any earlier one. */
  set<K extends ServiceName>(name: K, service: AppServices[K]): void
  /** The service under `name`; throws when none was set (a feature that needs it is missing). */
  get<K extends ServiceName>(name: K): AppServices[K]
  /** The service under `name`, or undefined (for optional collaborators). */
  find<K extends ServiceName>(name: K): AppServices[K] | undefined
  /** Removes the service under `name` (a feature that stops offering it). */
  delete(name: ServiceName): void
  /** The names of the services set, sorted. */
  names(): ServiceName[]
}

/** Creates an empty services registry. */
export function createServices(): ServiceRegistry {
  const map = new Map<ServiceName, unknown>()
  return {
    set(name, service) {
      map.set(name, service)
    },
    get<K extends ServiceName>(name: K): AppServices[K] {
      if (!map.has(name)) throw new Error(`no "${name}" service is registered on this app`)
      return map.get(name) as AppServices[K]
    },
    find<K extends ServiceName>(name: K): AppServices[K] | undefined {
      return map.get(name) as AppServices[K] | undefined
    },
    delete(name) {
      map.delete(name)
    },
    names() {
      return [...map.keys()].sort()
    },
  }
}
