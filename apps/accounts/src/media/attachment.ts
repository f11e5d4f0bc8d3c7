import { encode } from 'blurhash'
import sharp from './sharp'
import { Invalid } from '@roost/errors'
import type { MediaFiles } from './files'
import { IMAGE_LIMIT, reencodeImage, tooLarge, UNDECODABLE } from './images'
import { newFileName } from './storage'

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

/** A focal point (Mastodon's `meta.focus`): x and y from -1.0 to 1.0, the centre at 0,0 (docs/media.md). */
export interface Focus {
  x: number
  y: number
}

export interface MediaMeta {
  original: ImageSize
  small: ImageSize
  focus?: Focus
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

export interface StoredAttachmentImage {
  file: string
  type: string
  previewFile: string
  meta: MediaMeta
  blurhash: string
}

/**
 * Stores an image attachment and what Mastodon computes on upload (docs/media.md, "Images"): the original
 * re-encoded (metadata stripped but for the colour profile, orientation applied, scaled to Mastodon's 8.3
 * megapixels), `meta.original` and `meta.small`, the `small` preview file saved next to it, and the blurhash.
 * 16 MB or more is a 422 (Mastodon's IMAGE_LIMIT); an upload whose header says image but which does not decode is
 * a 422, never a 500. Animated GIFs do not come here: uploadMedia sends them to the video pipeline, which makes them
 * `gifv` (docs/media.md, "Video, audio and GIFs").
 */
export async function storeAttachmentImage(files: MediaFiles, data: Buffer): Promise<StoredAttachmentImage> {
  if (data.length >= IMAGE_LIMIT) throw tooLarge(IMAGE_LIMIT)
  return reencodeAttachmentImage(files, data)
}

/**
 * storeAttachmentImage without the size limit on the input: for files already stored (the `media
 * strip-metadata` command), which were within the limits of their day.
 */
export async function reencodeAttachmentImage(
  files: MediaFiles,
  data: Buffer,
): Promise<StoredAttachmentImage> {
  const image = await reencodeImage(data, 'original')
  const small = smallSize(image.width, image.height)
  const jpeg = image.type === 'image/jpeg'
  let preview: Buffer
  let pixels: { data: Buffer; info: { width: number; height: number } }
  try {
    // The first frame of an animation; the original is upright and clean already.
    preview = await sharp(image.data)
      .resize(small.width, small.height, { fit: 'fill' })
      .keepIccProfile()
      .toFormat(jpeg ? 'jpeg' : 'png', jpeg ? { quality: 90, progressive: true } : {})
      .toBuffer()
    pixels = await sharp(image.data)
      .resize(32, 32, { fit: 'inside' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true })
  } catch (err) {
    throw new Invalid(UNDECODABLE, undefined, { cause: err })
  }
  const file = newFileName(image.ext)
  const previewFile = `${file.split('.')[0]}-small.${jpeg ? 'jpg' : 'png'}`
  await files.put(file, image.data, image.type)
  await files.put(previewFile, preview, jpeg ? 'image/jpeg' : 'image/png')
  const blurhash = encode(
    new Uint8ClampedArray(pixels.data),
    pixels.info.width,
    pixels.info.height,
    BLURHASH_COMPONENTS,
    BLURHASH_COMPONENTS,
  )
  return {
    file,
    type: image.type,
    previewFile,
    meta: { original: sizeOf(image.width, image.height), small: sizeOf(small.width, small.height) },
    blurhash,
  }
}
