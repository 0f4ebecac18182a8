/**
 * QR codes: the `qrcode` package makes the module matrix (it picks the version and the shortest
 * mix of modes) on the CPU worker pool, since a large code takes it tens of milliseconds; the SVG
 * is written here as one path, the PNG drawn pixel by pixel (1 bit each) at exactly the asked
 * size, with whole-pixel modules centred in a quiet zone of at least four modules.
 */
import { cpuPool, resolvePackage, type CpuTask } from '../../tools/cpu-pool.js'
import { encodePng1, rowBytes } from './png1.js'

/** The error correction levels. */
export const ECC_LEVELS = ['L', 'M', 'Q', 'H'] as const
export type EccLevel = (typeof ECC_LEVELS)[number]

/** Bytes of data at QR version 40 in byte mode, per level: the most any code holds. */
export const QR_MAX_BYTES: Readonly<Record<EccLevel, number>> = {
  L: 2953,
  M: 2331,
  Q: 1663,
  H: 1273,
}

/**
 * The matrix made on a worker thread: `qrcode` (loaded there with the first code) and its modules,
 * one byte each, row by row.
 */
const QR_TASK: CpuTask = {
  name: 'svc.qrModules',
  source: `(input, load) => {
    const { modules } = load('qrcode').create(input.data, { errorCorrectionLevel: input.ecc })
    return { size: modules.size, data: modules.data }
  }`,
  packages: { qrcode: resolvePackage('qrcode') },
}

/** The quiet zone around the code, in modules (the standard's minimum). */
export const QR_MARGIN = 4

/** The module matrix of `data`: `size` modules square, `dark(row, col)`. */
export interface QrMatrix {
  size: number
  dark(row: number, col: number): boolean
}

/**
 * The matrix of `data` at `ecc` (the caller checked the byte length against the limit), made on
 * the CPU worker pool: rejects with `CpuPoolBusyError` when it is saturated, and with the
 * encoder's error when the data does not fit.
 */
export async function qrMatrix(data: string, ecc: EccLevel): Promise<QrMatrix> {
  const modules = await cpuPool.run<{ size: number; data: Uint8Array }>(QR_TASK, { data, ecc })
  const bits = modules.data
  const size = modules.size
  return { size, dark: (row, col) => bits[row * size + col] === 1 }
}

/** Modules across, quiet zone included. */
export function qrWidth(matrix: QrMatrix): number {
  return matrix.size + 2 * QR_MARGIN
}

/** The SVG of a code, `size` pixels square: white background, dark runs as one path. */
export function qrSvg(matrix: QrMatrix, size: number): string {
  const total = qrWidth(matrix)
  let d = ''
  for (let row = 0; row < matrix.size; row++) {
    let col = 0
    while (col < matrix.size) {
      if (!matrix.dark(row, col)) {
        col++
        continue
      }
      const start = col
      while (col < matrix.size && matrix.dark(row, col)) col++
      d += `M${start + QR_MARGIN} ${row + QR_MARGIN}h${col - start}v1h${start - col}z`
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${total} ${total}" shape-rendering="crispEdges">` +
    `<rect width="${total}" height="${total}" fill="#ffffff"/><path fill="#000000" d="${d}"/></svg>`
  )
}

/**
 * The PNG of a code at exactly `size`×`size` (1-bit greyscale): each module `floor(size / width)`
 * pixels, the code centred, the rest white. `size` is at least {@link qrWidth}.
 */
export function qrPng(matrix: QrMatrix, size: number): Promise<Buffer> {
  const scale = Math.floor(size / qrWidth(matrix))
  const offset = Math.floor((size - scale * matrix.size) / 2)
  const stride = 1 + rowBytes(size)
  const white = Buffer.alloc(stride, 0xff)
  white[0] = 0 // filter: none
  // Bits past the last pixel of a row stay 1: decoders ignore them.
  const rows = Buffer.alloc(stride * size)
  for (let y = 0; y < size; y++) white.copy(rows, y * stride)
  const line = Buffer.alloc(stride)
  for (let row = 0; row < matrix.size; row++) {
    white.copy(line)
    for (let col = 0; col < matrix.size; col++) {
      if (!matrix.dark(row, col)) continue
      for (let x = offset + col * scale; x < offset + (col + 1) * scale; x++)
        line[1 + (x >> 3)]! &= ~(0x80 >> (x & 7))
    }
    for (let y = offset + row * scale; y < offset + (row + 1) * scale; y++)
      line.copy(rows, y * stride)
  }
  return encodePng1(size, size, rows)
}
