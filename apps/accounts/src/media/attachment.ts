import { encode } from 'blurhash'
import sharp from 'sharp'
import { Invalid } from '@roost/errors'
import type { MediaFiles } from './files'
import { imageType, notAnImage, storeImage } from './storage'

/** Mastodon's MediaAttachment IMAGE_STYLES `small`: at most 230,400 pixels (640×360), never enlarged. */
export const SMALL_PIXELS = 230_400
/** Mastodon's BLURHASH_OPTIONS: 4×4 components. */
const BLURHASH_COMPONENTS = 4

export interface ImageSize {
  width: number
  height: number
  size: string
  aspect: number
}

export interface MediaMeta {
  original: ImageSize
  small: ImageSize
}

const sizeOf = (width: number, height: number): ImageSize => ({
  width,
  height,
  size: `${width}x${height}`,
  aspect: width / height,
})

/** The `small` box for an image: scaled to SMALL_PIXELS area, keeping the aspect, never larger than the original. */
export function smallSize(width: number, height: number): { width: number; height: number } {
  if (width * height <= SMALL_PIXELS) return { width, height }
  const scale = Math.sqrt(SMALL_PIXELS / (width * height))
  return {
    width: Math.max(1, Math.floor(width * scale)),
    height: Math.max(1, Math.floor(height * scale)),
  }
}

/** Mastodon's MediaController answer when its image tools cannot identify the file (422). */
const UNDECODABLE = 'File type of uploaded media could not be verified'

/**
 * Stores an image attachment and what Mastodon computes on upload (docs/mastodon-compatibility.md, "Statuses and media"):
 * `meta.original` and `meta.small`, the `small` preview file saved next to the original, and the blurhash.
 * An upload whose header says image but which does not decode is a 422, never a 500.
 */
export async function storeAttachmentImage(
  files: MediaFiles,
  data: Buffer,
): Promise<{ file: string; type: string; previewFile: string; meta: MediaMeta; blurhash: string }> {
  // Not an image by its first bytes: storeImage's 422, as for avatars.
  if (!imageType(data)) throw notAnImage()
  let decoded: { width: number; height: number; small: Buffer; pixels: Buffer; pw: number; ph: number }
  try {
    // autoOrient: sizes and previews as the image is shown (EXIF rotation applied), as Mastodon's are.
    const meta = await sharp(data).metadata()
    const width = meta.autoOrient?.width ?? meta.width
    const height = meta.autoOrient?.height ?? meta.height
    if (!width || !height) throw new Error('no size')
    const small = smallSize(width, height)
    const base = () => sharp(data).autoOrient()
    const preview = await base()
      .resize(small.width, small.height, { fit: 'fill' })
      .toFormat(meta.format === 'jpeg' ? 'jpeg' : 'png')
      .toBuffer()
    const raw = await base()
      .resize(32, 32, { fit: 'inside' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true })
    decoded = {
      width,
      height,
      small: preview,
      pixels: raw.data,
      pw: raw.info.width,
      ph: raw.info.height,
    }
  } catch (err) {
    throw new Invalid(UNDECODABLE, undefined, { cause: err })
  }
  const stored = await storeImage(files, data)
  const small = smallSize(decoded.width, decoded.height)
  const jpeg = stored.type === 'image/jpeg'
  const previewFile = `${stored.file.split('.')[0]}-small.${jpeg ? 'jpg' : 'png'}`
  await files.put(previewFile, decoded.small, jpeg ? 'image/jpeg' : 'image/png')
  const blurhash = encode(
    new Uint8ClampedArray(decoded.pixels),
    decoded.pw,
    decoded.ph,
    BLURHASH_COMPONENTS,
    BLURHASH_COMPONENTS,
  )
  return {
    ...stored,
    previewFile,
    meta: { original: sizeOf(decoded.width, decoded.height), small: sizeOf(small.width, small.height) },
    blurhash,
  }
}
