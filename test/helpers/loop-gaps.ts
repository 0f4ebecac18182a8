/**
 * Starts a 10 ms timer on this process's event loop (an in-process server's too); `stop()` gives
 * the longest gap seen between two ticks, in ms: how long the loop was held at worst.
 */
export function trackLoopGaps(): { stop(): number } {
  let last = performance.now()
  let worst = 0
  const timer = setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last)
    last = now
  }, 10)
  return {
    stop() {
      clearInterval(timer)
      return Math.max(worst, performance.now() - last)
    },
  }
}
