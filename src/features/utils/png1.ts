/**
 * A minimal PNG encoder for black-and-white images (1 bit per pixel, greyscale): a QR code of
 * 2048×2048 pixels is a few kilobytes and encodes in milliseconds, where a generic 8-bit encoder
 * spends ~100 ms and ~170 kB on it. The compression runs on libuv's thread pool (zlib's async
 * `deflate`: the same bytes as `deflateSync`), off the event loop.
 */
import { promisify } from 'node:util'
import { deflate } from 'node:zlib'

const deflateAsync = promisify(deflate)

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

const CRC_TABLE = (() => {
  const table = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c
  }
  return table
})()

function crc32(bytes: Buffer): number {
  let c = -1
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ -1) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  data.copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/** Bytes of one packed row (without its filter byte). */
export function rowBytes(width: number): number {
  return Math.ceil(width / 8)
}

/**
 * Encodes a 1-bit image: `rows` holds `height` rows of `1 + rowBytes(width)` bytes each, a
 * filter byte 0 then the pixels packed most significant bit first, 1 white and 0 black.
 */
export async function encodePng1(width: number, height: number, rows: Buffer): Promise<Buffer> {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 1 // bit depth
  header[9] = 0 // greyscale
  const compressed = await deflateAsync(rows, { level: 9 })
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', compressed),
    chunk('IEND', Buffer.alloc(0)),
  ])
}
