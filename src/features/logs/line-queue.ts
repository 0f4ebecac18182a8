/**
 * Rows waiting to be written, kept as UTF-8 JSON-array lines in a growing Buffer: outside the JS
 * heap, so a busy server's queued request logs (hundreds per flush) cost the garbage collector
 * nothing, and a whole batch travels to the database's worker thread without a copy.
 */

/** Bytes of a fresh queue; it doubles as needed. */
const INITIAL_BYTES = 64 * 1024
const NEWLINE = 0x0a

export class LineQueue {
  private buf = Buffer.allocUnsafeSlow(INITIAL_BYTES)
  private used = 0
  /** Rows queued. */
  count = 0

  /** Queues one row (strings, numbers, booleans and null). */
  push(row: readonly unknown[]): void {
    const line = JSON.stringify(row)
    // NB: a UTF-16 unit is at most 3 UTF-8 bytes.
    const need = line.length * 3 + 1
    if (this.used + need > this.buf.length) this.grow(need)
    this.used += this.buf.write(line, this.used, 'utf8')
    this.buf[this.used++] = NEWLINE
    this.count++
  }

  /** Hands over every queued row as one byte array (owning its memory) and starts empty. */
  take(): { lines: Uint8Array; count: number } {
    const out = { lines: new Uint8Array(this.buf.buffer, 0, this.used), count: this.count }
    if (this.used < this.buf.length) {
      // NB: a view on part of the buffer cannot be transferred; copy the used bytes once.
      const exact = new Uint8Array(new ArrayBuffer(this.used))
      exact.set(out.lines)
      out.lines = exact
    }
    this.buf = Buffer.allocUnsafeSlow(INITIAL_BYTES)
    this.used = 0
    this.count = 0
    return out
  }

  private grow(need: number): void {
    let size = this.buf.length * 2
    while (size < this.used + need) size *= 2
    const next = Buffer.allocUnsafeSlow(size)
    this.buf.copy(next, 0, 0, this.used)
    this.buf = next
  }
}

/** The rows of `lines` (as made by `LineQueue`), for a writer without a worker thread. */
export function parseLines(lines: Uint8Array): unknown[][] {
  const text = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength).toString('utf8')
  const rows: unknown[][] = []
  for (const line of text.split('\n')) if (line !== '') rows.push(JSON.parse(line) as unknown[])
  return rows
}
