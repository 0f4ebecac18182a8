/**
 * Messages of the image utilities (`features/utils`, see docs/utils.md): avatar and QR code
 * parameters, the QR data limit of each error correction level, and the smallest PNG a QR code
 * fits in.
 */
import type { Args, Entry } from '../../core/errors/catalogue.js'

/** Top-level messages of the avatar and QR code endpoints. */
export const utilsMessages = {
  avatarInvalid: 'Invalid avatar parameters.',
  qrInvalid: 'Invalid QR code parameters.',
  qrDataTooLong: ({ max, ecc }: Args<'max' | 'ecc'>) =>
    `Invalid QR code parameters: data is at most ${max} bytes of UTF-8 at error correction level ${ecc}.` as const,
  qrSizeTooSmall: ({ min, modules }: Args<'min' | 'modules'>) =>
    `Invalid QR code parameters: this code is ${modules} modules wide with its margin, so a PNG needs a size of at least ${min}.` as const,
  imagesBusy: 'Too many images are being drawn right now: retry in a moment.',
} as const satisfies Record<string, Entry>

declare module '../../core/errors/catalogue.js' {
  interface FeatureMessages {
    utils: typeof utilsMessages
  }
}
