/**
 * The in-memory side of vector search: one contiguous Float32Array of stored vectors per
 * (collection, vector field), their inverse norms, and an exact top-k cosine ranking over all of
 * them or over a list of slots, with a k-sized heap instead of a full sort.
 */

/** One ranked hit: a slot of the index and its cosine similarity. */
export interface Hit {
  slot: number
  score: number
}

/**
 * The vectors of one field, kept as stored (float32) with `1 / norm` beside each, so a cosine
 * score is `dot(query, v) * invNorm` with the query normalised: exactly the cosine of the stored
 * values. Deleting moves the last vector into the freed slot.
 */
export class VectorIndex {
  data: Float32Array
  invNorm: Float64Array
  ids: string[] = []
  private readonly slots = new Map<string, number>()

  constructor(
    readonly dims: number,
    capacity = 1024,
  ) {
    this.data = new Float32Array(Math.max(1, capacity) * dims)
    this.invNorm = new Float64Array(Math.max(1, capacity))
  }

  /** How many vectors the index holds. */
  get count(): number {
    return this.ids.length
  }

  /** The bytes the index's arrays take. */
  get bytes(): number {
    return this.data.byteLength + this.invNorm.byteLength
  }

  /** The slot of record `id`, if indexed. */
  slotOf(id: string): number | undefined {
    return this.slots.get(id)
  }

  /** Adds or replaces the vector of `id`; a null vector (or one of other dimensions) removes it. */
  set(id: string, vector: ArrayLike<number> | null): void {
    if (!vector || vector.length !== this.dims) {
      this.remove(id)
      return
    }
    let slot = this.slots.get(id)
    if (slot === undefined) {
      slot = this.ids.length
      this.grow(slot + 1)
      this.ids.push(id)
      this.slots.set(id, slot)
    }
    const off = slot * this.dims
    let sum = 0
    for (let j = 0; j < this.dims; j++) {
      const x = Math.fround(vector[j]!)
      this.data[off + j] = x
      sum += x * x
    }
    this.invNorm[slot] = sum > 0 ? 1 / Math.sqrt(sum) : 0
  }

  /** Removes the vector of `id` (nothing when absent). */
  remove(id: string): void {
    const slot = this.slots.get(id)
    if (slot === undefined) return
    const last = this.ids.length - 1
    if (slot !== last) {
      const lastId = this.ids[last]!
      this.data.copyWithin(slot * this.dims, last * this.dims, (last + 1) * this.dims)
      this.invNorm[slot] = this.invNorm[last]!
      this.ids[slot] = lastId
      this.slots.set(lastId, slot)
    }
    this.ids.pop()
    this.slots.delete(id)
  }

  private grow(needed: number): void {
    const capacity = this.invNorm.length
    if (needed <= capacity) return
    const next = Math.max(needed, capacity * 2)
    const data = new Float32Array(next * this.dims)
    data.set(this.data)
    const inv = new Float64Array(next)
    inv.set(this.invNorm)
    this.data = data
    this.invNorm = inv
  }
}

/** `v / |v|` as float64 numbers, or null for a zero vector. */
export function normalised(v: ArrayLike<number>): Float64Array | null {
  let sum = 0
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!
  if (!(sum > 0) || !Number.isFinite(sum)) {
    // Huge values overflow the sum: scale down first.
    let max = 0
    for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!))
    if (!(max > 0) || !Number.isFinite(max)) return null
    const scaled = Float64Array.from(v, (x) => x / max)
    return normalised(scaled)
  }
  const inv = 1 / Math.sqrt(sum)
  return Float64Array.from(v, (x) => x * inv)
}

/** A min-heap of the k best hits seen so far (the worst of them on top). */
class TopK {
  readonly scores: Float64Array
  readonly slots: Int32Array
  size = 0

  constructor(readonly k: number) {
    this.scores = new Float64Array(k)
    this.slots = new Int32Array(k)
  }

  /** The score a hit must beat to enter (−∞ while not full). */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!
  }

  push(slot: number, score: number): void {
    const { scores, slots } = this
    let i: number
    if (this.size < this.k) {
      i = this.size++
      while (i > 0) {
        const p = (i - 1) >> 1
        if (scores[p]! <= score) break
        scores[i] = scores[p]!
        slots[i] = slots[p]!
        i = p
      }
    } else {
      i = 0
      for (;;) {
        const l = 2 * i + 1
        if (l >= this.size) break
        const r = l + 1
        const c = r < this.size && scores[r]! < scores[l]! ? r : l
        if (scores[c]! >= score) break
        scores[i] = scores[c]!
        slots[i] = slots[c]!
        i = c
      }
    }
    scores[i] = score
    slots[i] = slot
  }

  /** The hits, best first. */
  sorted(): Hit[] {
    const out: Hit[] = []
    for (let i = 0; i < this.size; i++) out.push({ slot: this.slots[i]!, score: this.scores[i]! })
    return out.sort((a, b) => b.score - a.score || a.slot - b.slot)
  }
}

/** `dot(q, data[off … off + dims)) `, unrolled by four. */
function dot(q: Float64Array, data: Float32Array, off: number, dims: number): number {
  let a0 = 0
  let a1 = 0
  let a2 = 0
  let a3 = 0
  let j = 0
  for (; j + 3 < dims; j += 4) {
    a0 += q[j]! * data[off + j]!
    a1 += q[j + 1]! * data[off + j + 1]!
    a2 += q[j + 2]! * data[off + j + 2]!
    a3 += q[j + 3]! * data[off + j + 3]!
  }
  for (; j < dims; j++) a0 += q[j]! * data[off + j]!
  return a0 + a1 + (a2 + a3)
}

/**
 * Rows scored between two checks of the clock: about a million multiply-adds, under a
 * millisecond, whatever the dimensions.
 */
const BLOCK_MACS = 1 << 20
/** The longest stretch a ranking holds the event loop before it yields, in ms. */
export const RANK_SLICE_MS = 10

/** Lets the event loop run (I/O, timers, other requests) before the ranking goes on. */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Rows per block for `dims` dimensions: even (pairs stay pairs), at least 2. */
function blockRows(dims: number): number {
  return Math.max(2, Math.floor(BLOCK_MACS / dims / 2) * 2)
}

/**
 * Scores rows `[from, to)` into the heap, two at a time when `dims` is even (they share each load
 * of the query: about 10 % faster than one by one). `from` is even, so the rows pair up as in one
 * pass over all of them and the heap sees the same pushes in the same order.
 */
function scanRows(
  heap: TopK,
  data: Float32Array,
  invNorm: Float64Array,
  dims: number,
  from: number,
  to: number,
  q: Float64Array,
  exclude: number,
): void {
  const even = dims % 2 === 0
  let s = from
  for (; even && s + 1 < to; s += 2) {
    const o0 = s * dims
    const o1 = o0 + dims
    let a0 = 0
    let a1 = 0
    let b0 = 0
    let b1 = 0
    for (let j = 0; j < dims; j += 2) {
      const x = q[j]!
      const y = q[j + 1]!
      a0 += x * data[o0 + j]!
      a1 += y * data[o0 + j + 1]!
      b0 += x * data[o1 + j]!
      b1 += y * data[o1 + j + 1]!
    }
    const sa = (a0 + a1) * invNorm[s]!
    const sb = (b0 + b1) * invNorm[s + 1]!
    if (s !== exclude && sa > heap.floor) heap.push(s, sa)
    if (s + 1 !== exclude && sb > heap.floor) heap.push(s + 1, sb)
  }
  for (; s < to; s++) {
    if (s === exclude) continue
    const score = dot(q, data, s * dims, dims) * invNorm[s]!
    if (score > heap.floor) heap.push(s, score)
  }
}

/**
 * The `k` most similar vectors of the first `count` rows of `data` (`dims` floats each) to the
 * normalised query `q`: cosine `dot · invNorm`, one pass, a k-sized heap. `exclude` (a slot, or
 * −1) is left out. The physical floor of vector search is this very loop. It runs in slices,
 * yielding to the event loop whenever it has run {@link RANK_SLICE_MS}, so a large index never
 * holds the loop for a whole ranking; the hits do not depend on where the slices fall (the same
 * rows, scored the same way, pushed in the same order). The caller keeps the arrays unchanged
 * until it resolves.
 */
export async function topKSliced(
  data: Float32Array,
  invNorm: Float64Array,
  dims: number,
  count: number,
  q: Float64Array,
  k: number,
  exclude = -1,
): Promise<Hit[]> {
  const heap = new TopK(k)
  const block = blockRows(dims)
  let slice = performance.now()
  for (let from = 0; from < count; from += block) {
    scanRows(heap, data, invNorm, dims, from, Math.min(count, from + block), q, exclude)
    if (performance.now() - slice >= RANK_SLICE_MS && from + block < count) {
      await yieldToLoop()
      slice = performance.now()
    }
  }
  return heap.sorted()
}

/** {@link topKSliced} over the given slots only (the candidates a rule or filter left). */
export async function topKOfSliced(
  index: VectorIndex,
  q: Float64Array,
  slots: ArrayLike<number>,
  k: number,
  exclude = -1,
): Promise<Hit[]> {
  const heap = new TopK(k)
  const block = blockRows(index.dims)
  let slice = performance.now()
  for (let from = 0; from < slots.length; from += block) {
    scanSlots(heap, index, q, slots, from, Math.min(slots.length, from + block), exclude)
    if (performance.now() - slice >= RANK_SLICE_MS && from + block < slots.length) {
      await yieldToLoop()
      slice = performance.now()
    }
  }
  return heap.sorted()
}

function scanSlots(
  heap: TopK,
  index: VectorIndex,
  q: Float64Array,
  slots: ArrayLike<number>,
  from: number,
  to: number,
  exclude: number,
): void {
  const { data, invNorm, dims } = index
  for (let i = from; i < to; i++) {
    const s = slots[i]!
    if (s === exclude) continue
    const score = dot(q, data, s * dims, dims) * invNorm[s]!
    if (score > heap.floor) heap.push(s, score)
  }
}
