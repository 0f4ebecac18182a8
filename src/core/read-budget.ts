/** Keeps the store's read budget (`Db.setReadBudget`) equal to `settings.reads.timeoutMs`. */
import type { Store } from '../store/store.js'
import type { EventBus } from './events.js'
import type { SettingsService } from './settings/index.js'

/**
 * Applies the budget now and after every settings change (before the PATCH that made it is
 * answered); returns the unsubscribe.
 */
export function followReadBudget(
  store: Store,
  settings: SettingsService,
  events: EventBus,
): () => void {
  let applied = -1
  const apply = () => {
    const ms = settings.get().reads.timeoutMs
    if (ms === applied) return
    applied = ms
    store.database('main').setReadBudget?.(ms)
    store.database('auxiliary').setReadBudget?.(ms)
  }
  apply()
  // A PATCH: applied before it is answered; another instance's change: through the bus.
  const unapply = settings.onApply(apply)
  const unsubscribe = events.subscribe((e) => {
    if (e.kind === 'settings') apply()
  })
  return () => {
    unapply()
    unsubscribe()
  }
}
