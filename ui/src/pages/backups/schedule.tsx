/**
 * The backups schedule: the `backups` settings group (cron, how many automatic backups to keep,
 * S3), read with `GET /api/settings` and saved with `PATCH /api/settings`.
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, fieldErrors, pb } from '../../api'
import { Checkbox, TextField } from '../../components/ui'
import { toast } from '../../toasts'

interface S3 {
  enabled: boolean
  bucket: string
  region: string
  endpoint: string
  accessKey: string
  secret: string
  forcePathStyle: boolean
}

interface BackupsSettings {
  cron: string
  cronMaxKeep: number
  s3: S3
}

const PRESETS = [
  { label: 'Every day at 00:00 UTC', value: '0 0 * * *' },
  { label: 'Every Sunday', value: '0 0 * * 0' },
  { label: 'Every hour', value: '0 * * * *' },
]

/** The errors of `backups.*` (nested `data.backups.cron.message`…), flattened to `cron`, `s3.bucket`. */
function backupErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (v: unknown, path: string) => {
    if (!v || typeof v !== 'object') return
    const m = (v as { message?: unknown }).message
    if (typeof m === 'string' && path) out[path] = m
    for (const [k, c] of Object.entries(v))
      if (k !== 'message' && k !== 'code') walk(c, path ? `${path}.${k}` : k)
  }
  walk((err as { response?: { data?: { backups?: unknown } } }).response?.data?.backups, '')
  return out
}

export function BackupSchedule() {
  const [s, setS] = useState<BackupsSettings | null>(null)
  const [auto, setAuto] = useState(false)
  const [secret, setSecret] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const [loadError, setLoadError] = useState('')

  useEffect(() => {
    pb.settings.getAll().then(
      (all) => {
        const b = all.backups as BackupsSettings
        setS(b)
        setAuto(b.cron !== '')
      },
      (err: unknown) => setLoadError(errorMessage(err)),
    )
  }, [])

  if (loadError)
    return <p class="error-text">The backup options could not be loaded: {loadError}</p>
  if (!s) return <p class="muted">Loading the backup options…</p>
  const set = (patch: Partial<BackupsSettings>) => setS({ ...s, ...patch })
  const setS3 = (patch: Partial<S3>) => setS({ ...s, s3: { ...s.s3, ...patch } })

  const save = async () => {
    setBusy(true)
    setErrors({})
    const { secret: _old, ...s3 } = s.s3
    const backups = {
      cron: auto ? s.cron.trim() : '',
      cronMaxKeep: Number(s.cronMaxKeep),
      s3: secret ? { ...s3, secret } : s3,
    }
    try {
      const all = await pb.settings.update({ backups })
      setS(all.backups as BackupsSettings)
      setSecret('')
      toast('success', 'The backup options were saved.')
    } catch (err) {
      const e = backupErrors(err)
      setErrors(Object.keys(e).length ? e : fieldErrors(err))
      toast('error', errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="backup-options" aria-labelledby="backup-options-title">
      <h2 id="backup-options-title">Backup options</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault()
          void save()
        }}
      >
        <Checkbox label="Enable automatic backups" checked={auto} onChange={setAuto} />
        {auto && (
          <div class="row schedule-row">
            <TextField
              label="Cron expression (UTC)"
              value={s.cron}
              onInput={(v) => set({ cron: v })}
              error={errors.cron}
              placeholder="0 0 * * *"
              hint={
                <span>
                  Presets:{' '}
                  {PRESETS.map((p) => (
                    <button
                      key={p.value}
                      type="button"
                      class="btn-link"
                      onClick={() => set({ cron: p.value })}
                    >
                      {p.label}
                    </button>
                  ))}
                  . Macros like @daily work too.
                </span>
              }
            />
            <TextField
              label="Automatic backups to keep"
              type="number"
              min="1"
              value={String(s.cronMaxKeep)}
              onInput={(v) => set({ cronMaxKeep: Number(v) })}
              error={errors.cronMaxKeep}
            />
          </div>
        )}
        <Checkbox
          label="Store backups in S3"
          checked={s.s3.enabled}
          onChange={(v) => setS3({ enabled: v })}
        />
        {s.s3.enabled && (
          <div class="s3-grid">
            <TextField
              label="Endpoint"
              value={s.s3.endpoint}
              onInput={(v) => setS3({ endpoint: v })}
              error={errors['s3.endpoint']}
            />
            <TextField
              label="Bucket"
              value={s.s3.bucket}
              onInput={(v) => setS3({ bucket: v })}
              error={errors['s3.bucket']}
            />
            <TextField
              label="Region"
              value={s.s3.region}
              onInput={(v) => setS3({ region: v })}
              error={errors['s3.region']}
            />
            <TextField
              label="Access key"
              value={s.s3.accessKey}
              onInput={(v) => setS3({ accessKey: v })}
              error={errors['s3.accessKey']}
            />
            <TextField
              label="Secret"
              type="password"
              value={secret}
              onInput={setSecret}
              placeholder="Unchanged when empty"
              autoComplete="new-password"
              error={errors['s3.secret']}
            />
            <Checkbox
              label="Force path-style addressing"
              checked={s.s3.forcePathStyle}
              onChange={(v) => setS3({ forcePathStyle: v })}
            />
          </div>
        )}
        <div class="row">
          <button
            type="submit"
            class="btn btn-primary"
            disabled={busy}
            aria-busy={busy || undefined}
          >
            Save backup options
          </button>
        </div>
      </form>
    </section>
  )
}
