/** The inspector's event list, newest first: action, record id, time, and the record's JSON. */
import type { RecordModel } from 'pocketbase'

/** One realtime event as received. */
export interface LiveEvent {
  n: number
  action: string
  id: string
  time: Date
  record: RecordModel
}

export function EventList(props: { events: LiveEvent[] }) {
  if (props.events.length === 0)
    return <p class="muted">No events yet. Create, update or delete a record to see one.</p>
  return (
    <ol class="realtime-events" aria-label="Events" reversed>
      {props.events.map((e) => (
        <li key={e.n} class={`realtime-event action-${e.action}`}>
          <details>
            <summary>
              <span class="badge">{e.action}</span> <span class="mono">{e.id}</span>{' '}
              <time class="muted" dateTime={e.time.toISOString()}>
                {e.time.toLocaleTimeString()}
              </time>
            </summary>
            <pre class="mono">{JSON.stringify(e.record, null, 2)}</pre>
          </details>
        </li>
      ))}
    </ol>
  )
}
