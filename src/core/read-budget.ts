/** Keeps the store's read budget (`Db.setReadBudget`) equal to `settings.reads.timeoutMs`. */
import type { Store } from '../store/store.js'
import type { EventBus } from './events.js'
import type { SettingsService } from './settings/index.js'

/** Applies the budget now and after every settings change; returns the unsubscribe. */
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
  return events.subscribe((e) => {
    if (e.kind === 'settings') apply()
  })
}
