/**
 * Settings (`#/settings/<section>`): a left sub-navigation with one section per settings group
 * of `GET /api/settings` (hand-made ones, plus one made from the value of any group the
 * dashboard does not know), each saved on its own with `PATCH /api/settings` (only its keys;
 * field errors under the inputs). Write-only secrets show "set" / "not set"
 * (`GET /api/settings/secrets`) and can be replaced or cleared, never displayed.
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, pb } from '../../api'
import { Button } from '../../components/ui'
import type { PageProps } from '../../pages'
import { href } from '../../router'
import { setAccent } from '../../theme'
import { toast } from '../../toasts'
import { ClientIp, RateLimitRules, TestEmail, TestS3, TestSms } from './extras'
import { SettingsField, type FieldContext } from './fields'
import {
  buildPatch,
  clone,
  flatErrors,
  isDirty,
  setAt,
  type Obj,
  type SecretEdit,
  type SecretEdits,
} from './model'
import { MORE_LINKS, SECTIONS, inferSections, sectionPaths, type Section } from './sections'
import './settings.css'

interface Loaded {
  saved: Obj
  secrets: Record<string, boolean>
}

async function load(): Promise<Loaded> {
  const [saved, secrets] = await Promise.all([
    pb.send<Obj>('/api/settings', {}),
    pb.send<Record<string, boolean>>('/api/settings/secrets', {}),
  ])
  return { saved, secrets }
}

export default function SettingsPage({ route }: PageProps) {
  const [data, setData] = useState<Loaded | null>(null)
  const [loadError, setLoadError] = useState('')
  const [draft, setDraft] = useState<Obj>({})
  const [edits, setEdits] = useState<SecretEdits>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [invalid, setInvalid] = useState<Record<string, boolean>>({})
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    load().then(
      (d) => {
        setData(d)
        setDraft(clone(d.saved))
      },
      (err: unknown) => setLoadError(errorMessage(err)),
    )
  }, [])

  if (loadError) return <p class="error-text">The settings could not be loaded: {loadError}</p>
  if (!data) return <p class="muted">Loading…</p>

  const secretPaths = Object.keys(data.secrets)
  const sections: Section[] = [...SECTIONS, ...inferSections(data.saved, secretPaths)].filter(
    // A hand-made section whose group the server does not have (a feature left out) is hidden.
    (s) => s.fields.some((f) => f.kind !== 'heading' && f.path.split('.')[0]! in data.saved),
  )
  const wanted = route.parts[1] ?? 'application'
  const section = sections.find((s) => s.id === wanted) ?? sections[0]!
  const paths = sectionPaths(section)
  const dirty = isDirty(draft, data.saved, paths, edits)
  const blocked = paths.some((p) => invalid[p])

  const ctx: FieldContext = {
    draft,
    set: (path, value) => setDraft((d) => setAt(d, path, value)),
    errors,
    secretsSet: data.secrets,
    secretEdits: edits,
    setSecret: (path: string, edit: SecretEdit | undefined) =>
      setEdits((e) => ({ ...e, [path]: edit })),
    setInvalid: (path, bad) => setInvalid((v) => (v[path] === bad ? v : { ...v, [path]: bad })),
  }

  async function save(e: Event) {
    e.preventDefault()
    if (!data || blocked) return
    setBusy(true)
    setErrors({})
    try {
      const body = buildPatch(draft, paths, secretPaths, edits)
      const saved = await pb.send<Obj>('/api/settings', { method: 'PATCH', body })
      const secrets = await pb.send<Record<string, boolean>>('/api/settings/secrets', {})
      // Keep the unsaved changes of other sections; take the server's values for this one.
      let next = draft
      for (const p of paths) {
        const v = p.split('.').reduce<unknown>((n, k) => (n as Obj | undefined)?.[k], saved)
        next = setAt(next, p, clone(v))
      }
      setData({ saved, secrets })
      setDraft(next)
      setEdits((all) => Object.fromEntries(Object.entries(all).filter(([p]) => !paths.includes(p))))
      if (paths.includes('meta.accentColor'))
        setAccent((saved.meta as Obj | undefined)?.accentColor as string | undefined)
      toast('success', `${section.title} settings saved.`)
    } catch (err) {
      setErrors(flatErrors(err))
      toast('error', errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  function reset() {
    let next = draft
    for (const p of paths)
      next = setAt(
        next,
        p,
        clone(p.split('.').reduce<unknown>((n, k) => (n as Obj | undefined)?.[k], data!.saved)),
      )
    setDraft(next)
    setEdits((all) => Object.fromEntries(Object.entries(all).filter(([p]) => !paths.includes(p))))
    setErrors({})
  }

  return (
    <div class="split settings-page">
      <nav class="sidebar" aria-label="Settings sections">
        <ul>
          {sections.map((s) => (
            <li key={s.id}>
              <a
                href={href(`settings/${s.id}`)}
                aria-current={s.id === section.id ? 'page' : undefined}
              >
                {s.title}
              </a>
            </li>
          ))}
        </ul>
        <h2 class="settings-more-title">More</h2>
        <ul>
          {MORE_LINKS.map((l) => (
            <li key={l.href}>
              <a href={l.href}>{l.label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <section class="settings-panel" aria-labelledby="settings-title">
        <div class="page-header">
          <h1 id="settings-title">{section.title}</h1>
          {dirty && <span class="badge">Unsaved changes</span>}
        </div>
        {section.intro && <p class="muted">{section.intro}</p>}
        {section.id === 'trusted-proxy' && <ClientIp ctx={ctx} kind="proxy" />}
        {section.id === 'superuser-ips' && <ClientIp ctx={ctx} kind="superuser-ips" />}
        <form class="stack settings-form" onSubmit={(e) => void save(e)}>
          {section.fields.map((f, i) => (
            <SettingsField key={`${section.id}-${f.path || i}`} spec={f} ctx={ctx} />
          ))}
          {section.id === 'rate-limits' && <RateLimitRules ctx={ctx} />}
          {errors[''] && <p class="error-text">{errors['']}</p>}
          <div class="row settings-actions">
            <Button type="submit" kind="primary" busy={busy} disabled={!dirty || blocked}>
              Save changes
            </Button>
            <Button onClick={reset} disabled={!dirty}>
              Discard
            </Button>
          </div>
        </form>
        <div class="stack settings-extras">
          {section.id === 'mail' && <TestEmail dirty={dirty} />}
          {section.id === 'storage' && <TestS3 filesystem="storage" dirty={dirty} />}
          {section.id === 'backups' && <TestS3 filesystem="backups" dirty={dirty} />}
          {section.id === 'sms' && <TestSms dirty={dirty} />}
          {section.links?.map((l) => (
            <a key={l.href} href={l.href}>
              {l.label} →
            </a>
          ))}
        </div>
      </section>
    </div>
  )
}
