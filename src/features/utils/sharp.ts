import { createRequire } from 'node:module'
import type SharpModule from 'sharp'

/** sharp (libvips), loaded on the first PNG: a server that never makes one never pays for it. */
let sharpModule: typeof SharpModule | null = null

/** The sharp module, loaded once. */
export function loadSharp(): typeof SharpModule {
  sharpModule ??= createRequire(import.meta.url)('sharp') as typeof SharpModule
  return sharpModule
}

/** Rasterises a self-contained SVG (its width and height in pixels) to PNG. */
export function svgToPng(svg: string): Promise<Buffer> {
  return loadSharp()(Buffer.from(svg, 'utf8')).png({ compressionLevel: 6 }).toBuffer()
}
