/**
 * `#/realtime`: the realtime inspector. Choose a topic (a collection's `*` or one record id) and
 * whose rules apply: the superuser's, or a chosen user's (an impersonation token from
 * `POST /api/collections/{c}/impersonate/{id}`, used by a separate SDK client, so the dashboard's
 * own session is untouched). Then watch the events arrive live; pause and clear.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import PocketBase, { BaseAuthStore, type RecordSubscription } from 'pocketbase'
import { apiBase, errorMessage, pb } from '../../api'
import { collections } from '../../collections'
import { Button, Checkbox, SelectField, TextField } from '../../components/ui'
import type { PageProps } from '../../pages'
import { EventList, type LiveEvent } from './events'
import './realtime.css'

const MAX_EVENTS = 500

interface Watch {
  client: PocketBase
  label: string
}

export default function RealtimePage(_props: PageProps) {
  const all = collections.value ?? []
  const [collection, setCollection] = useState('')
  const [recordId, setRecordId] = useState('')
  const [as, setAs] = useState<'superuser' | 'user'>('superuser')
  const [userCollection, setUserCollection] = useState('')
  const [user, setUser] = useState('')
  const [watch, setWatch] = useState<Watch | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const [paused, setPaused] = useState(false)
  const [events, setEvents] = useState<LiveEvent[]>([])
  const [skipped, setSkipped] = useState(0)
  const pausedRef = useRef(paused)
  pausedRef.current = paused
  const seq = useRef(0)

  const authCollections = all.filter((c) => c.type === 'auth')
  const chosen = collection || all.find((c) => !c.system)?.name || all[0]?.name || ''
  const chosenUserCollection =
    userCollection || authCollections.find((c) => !c.system)?.name || authCollections[0]?.name || ''

  useEffect(() => () => watch?.client.realtime.unsubscribe().catch(() => undefined), [watch])

  const stop = async () => {
    const w = watch
    setWatch(null)
    await w?.client.realtime.unsubscribe().catch(() => undefined)
  }

  const start = async () => {
    setBusy(true)
    setError('')
    try {
      await stop()
      let client: PocketBase
      let label: string
      if (as === 'superuser') {
        client = new PocketBase(apiBase, new BaseAuthStore())
        client.authStore.save(pb.authStore.token, pb.authStore.record)
        label = 'the superuser'
      } else {
        let id = user.trim()
        if (!id) throw new Error('Enter the id or e-mail of the user whose rules apply.')
        if (id.includes('@')) {
          const found = await pb
            .collection(chosenUserCollection)
            .getFirstListItem(pb.filter('email = {:email}', { email: id }))
          id = found.id
        }
        client = await pb.collection(chosenUserCollection).impersonate(id, 3600)
        const rec = client.authStore.record
        label = `${chosenUserCollection} ${(rec?.email as string | undefined) || id}`
      }
      client.autoCancellation(false)
      const topic = recordId.trim() || '*'
      await client.collection(chosen).subscribe(topic, (e: RecordSubscription) => {
        if (pausedRef.current) {
          setSkipped((n) => n + 1)
          return
        }
        const ev: LiveEvent = {
          n: ++seq.current,
          action: e.action,
          id: e.record.id,
          time: new Date(),
          record: e.record,
        }
        setEvents((prev) => [ev, ...prev].slice(0, MAX_EVENTS))
      })
      setWatch({ client, label: `${chosen}/${topic} as ${label}` })
    } catch (err) {
      setError(errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <div class="stack ops-page realtime-page">
      <div class="page-header">
        <h1>Realtime inspector</h1>
      </div>
      <form
        class="realtime-form"
        onSubmit={(e) => {
          e.preventDefault()
          void start()
        }}
      >
        <fieldset>
          <legend>Topic</legend>
          <SelectField
            label="Collection"
            value={chosen}
            options={all.map((c) => c.name)}
            onChange={setCollection}
          />
          <TextField
            label="Record id (empty for every record: *)"
            value={recordId}
            onInput={setRecordId}
            placeholder="*"
          />
        </fieldset>
        <fieldset>
          <legend>Whose rules apply</legend>
          <SelectField
            label="Listen as"
            value={as}
            options={[
              { value: 'superuser', label: 'Superuser (every event)' },
              { value: 'user', label: 'A user (their view and list rules)' },
            ]}
            onChange={(v) => setAs(v as 'superuser' | 'user')}
          />
          {as === 'user' && (
            <>
              <SelectField
                label="Auth collection"
                value={chosenUserCollection}
                options={authCollections.map((c) => c.name)}
                onChange={setUserCollection}
              />
              <TextField label="User id or e-mail" value={user} onInput={setUser} />
            </>
          )}
        </fieldset>
        <div class="row">
          <button
            type="submit"
            class="btn btn-primary"
            disabled={busy}
            aria-busy={busy || undefined}
          >
            {watch ? 'Restart' : 'Start listening'}
          </button>
          {watch && <Button onClick={() => void stop()}>Stop</Button>}
        </div>
      </form>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      <div class="row realtime-status">
        <span role="status" class={watch ? 'success-text' : 'muted'}>
          {watch ? `Listening to ${watch.label}` : 'Not listening.'}
        </span>
        <span class="grow" />
        <Checkbox label="Pause" checked={paused} onChange={setPaused} />
        {skipped > 0 && <span class="muted">{skipped} ignored while paused</span>}
        <Button
          onClick={() => {
            setEvents([])
            setSkipped(0)
          }}
        >
          Clear
        </Button>
      </div>
      <EventList events={events} />
    </div>
  )
}
