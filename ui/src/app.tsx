/**
 * The dashboard's root: the public pages (e-mail links, OAuth2 end, installer, sign-in) and,
 * for a signed-in superuser, the shell (top bar, the page of the route, toasts).
 */
import type { FunctionComponent } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { pb, refreshAuth, superuser } from './api'
import { Button, Toasts } from './components/ui'
import { ConfirmPage, OAuth2RedirectPage } from './pages/auth-links'
import Installer from './pages/installer'
import Login from './pages/login'
import { HOME, pages, type Page, type PageProps } from './pages'
import { reloadCollections } from './collections'
import { href, route } from './router'
import { scheme, setAccent, type Scheme } from './theme'

/** Loads a page's module once and renders it. */
function LazyPage(props: { page: Page } & PageProps) {
  const [mod, setMod] = useState<{ id: string; C: FunctionComponent<PageProps> } | null>(null)
  const [failed, setFailed] = useState('')
  useEffect(() => {
    let live = true
    props.page.load().then(
      (m) => live && setMod({ id: props.page.id, C: m.default }),
      (err: unknown) => live && setFailed(String(err)),
    )
    return () => {
      live = false
    }
  }, [props.page.id])
  if (failed) return <p class="error-text">This page could not be loaded: {failed}</p>
  if (!mod || mod.id !== props.page.id) return <p class="muted">Loading…</p>
  return <mod.C route={props.route} />
}

function SchemePicker() {
  return (
    <label class="scheme">
      <span class="sr-only">Colour scheme</span>
      <select
        value={scheme.value}
        onChange={(e) => (scheme.value = e.currentTarget.value as Scheme)}
        aria-label="Colour scheme"
      >
        <option value="auto">Auto</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  )
}

function Shell() {
  useEffect(() => {
    void reloadCollections()
  }, [])
  const r = route.value
  const id = r.parts[0] ?? HOME
  const page = pages.find((p) => p.id === id) ?? pages.find((p) => p.id === HOME) ?? pages[0]
  useEffect(() => {
    document.title = `${page?.title ?? 'Dashboard'} - svcbase`
  }, [page?.id])
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={href(HOME)}>
          svcbase
        </a>
        <nav aria-label="Main">
          {pages
            .filter((p) => p.nav)
            .map((p) => (
              <a key={p.id} href={href(p.id)} aria-current={p.id === page?.id ? 'page' : undefined}>
                {p.title}
              </a>
            ))}
        </nav>
        <div class="topbar-end">
          <SchemePicker />
          <span class="muted user">{superuser.value?.email as string}</span>
          <Button kind="link" onClick={() => pb.authStore.clear()}>
            Sign out
          </Button>
        </div>
      </header>
      <main id="main" class="page" tabIndex={-1}>
        {page ? <LazyPage page={page} route={r} /> : <p>No pages are built.</p>}
      </main>
    </div>
  )
}

export function App() {
  const [needsSetup, setNeedsSetup] = useState<boolean | null>(null)
  const r = route.value
  const [first, second, third] = r.parts

  useEffect(() => {
    void refreshAuth()
    pb.send<{ needsSetup: boolean }>('/api/setup/status', {}).then(
      (s) => setNeedsSetup(s.needsSetup),
      () => setNeedsSetup(false),
    )
    fetch(new URL('branding', window.location.href.split('#')[0]))
      .then((res) => (res.ok ? res.json() : null))
      .then((b: { accentColor?: string } | null) => setAccent(b?.accentColor))
      .catch(() => undefined)
  }, [])

  let body
  if (first === 'auth' && second?.startsWith('confirm-') && third) {
    body = <ConfirmPage kind={second as Parameters<typeof ConfirmPage>[0]['kind']} token={third} />
  } else if (first === 'auth' && second?.startsWith('oauth2-redirect-')) {
    body = <OAuth2RedirectPage ok={second === 'oauth2-redirect-success'} />
  } else if (needsSetup === null) {
    body = <p class="muted center">Loading…</p>
  } else if (needsSetup) {
    body = (
      <Installer
        token={first === 'pbinstall' ? second : undefined}
        onDone={() => setNeedsSetup(false)}
      />
    )
  } else if (!superuser.value) {
    body = <Login />
  } else body = <Shell />

  return (
    <>
      {body}
      <Toasts />
    </>
  )
}
