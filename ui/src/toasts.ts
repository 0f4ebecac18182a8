/** Short messages at the corner of the screen: successes fade, errors stay until closed. */
import { signal } from '@preact/signals'

export interface Toast {
  id: number
  kind: 'success' | 'error'
  text: string
}

export const toasts = signal<Toast[]>([])
let next = 1

/** Shows a toast; successes go away after 4 s. */
export function toast(kind: Toast['kind'], text: string): void {
  const id = next++
  toasts.value = [...toasts.value, { id, kind, text }]
  if (kind === 'success') window.setTimeout(() => dismiss(id), 4000)
}

export function dismiss(id: number): void {
  toasts.value = toasts.value.filter((t) => t.id !== id)
}
