/**
 * Light, dark or auto (the system's) colour scheme, kept in localStorage, and the app's accent
 * colour (Settings › Application) as the `--accent` CSS variable and `<meta name=theme-color>`.
 */
import { effect, signal } from '@preact/signals'

export type Scheme = 'light' | 'dark' | 'auto'

const KEY = 'svcColorScheme'

function stored(): Scheme {
  const v = window.localStorage.getItem(KEY)
  return v === 'light' || v === 'dark' ? v : 'auto'
}

/** The chosen scheme. */
export const scheme = signal<Scheme>(stored())

const media = window.matchMedia('(prefers-color-scheme: dark)')

function apply(): void {
  const dark = scheme.value === 'dark' || (scheme.value === 'auto' && media.matches)
  document.documentElement.dataset.theme = dark ? 'dark' : 'light'
}

effect(() => {
  window.localStorage.setItem(KEY, scheme.value)
  apply()
})
media.addEventListener('change', apply)

/** Sets the accent colour (a `#rrggbb` value; anything else is ignored). */
export function setAccent(color: string | undefined): void {
  if (!color || !/^#[0-9a-fA-F]{6}$/.test(color)) return
  document.documentElement.style.setProperty('--accent', color)
  document.querySelector('meta[name=theme-color]')?.setAttribute('content', color)
}
