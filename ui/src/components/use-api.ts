/**
 * Two hooks most pages need: a value loaded from the API (with the error of the last load and a
 * way to load it again), and a one-at-a-time action with its outcome as a toast.
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage } from '../api'
import { toast } from '../toasts'

/** Loads `load()` on mount; `reload()` again. `value` stays null until the first success. */
export function useLoaded<T>(load: () => Promise<T>): {
  value: T | null
  error: string
  reload: () => Promise<void>
} {
  const [value, setValue] = useState<T | null>(null)
  const [error, setError] = useState('')
  const reload = async () => {
    try {
      setValue(await load())
      setError('')
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  useEffect(() => {
    void reload()
  }, [])
  return { value, error, reload }
}

/**
 * An action run one at a time: `busy` while it runs; its success (a message, when given) or its
 * error is shown as a toast. `run` resolves true when the action succeeded.
 */
export function useAction(): {
  busy: boolean
  run: (fn: () => Promise<unknown>, success?: string) => Promise<boolean>
} {
  const [busy, setBusy] = useState(false)
  const run = async (fn: () => Promise<unknown>, success?: string) => {
    setBusy(true)
    try {
      await fn()
      if (success) toast('success', success)
      return true
    } catch (err) {
      toast('error', errorMessage(err))
      return false
    } finally {
      setBusy(false)
    }
  }
  return { busy, run }
}
