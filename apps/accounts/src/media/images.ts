import sharp from './sharp'
import type { Sharp } from './sharp'
import { Invalid } from '@roost/errors'
import type { MediaFiles } from './files'
import { imageType, newFileName, notAnImage } from './storage'

/**
 * Every image Roost stores is re-encoded, never kept as uploaded (docs/media.md, "Images"): decoded and written
 * again by libvips (sharp), which keeps the pixels and the ICC colour profile and drops everything else (EXIF
 * with its GPS position, camera and owner; XMP; IPTC; comments), with the EXIF orientation applied first so that
 * a rotated phone photo is stored upright. Each use has its size (Mastodon's styles), and the format stays the
 * one that came in, as Mastodon keeps JPEG, PNG, WebP and still GIF.
 */

/** Mastodon's MediaAttachment IMAGE_LIMIT: an image attachment must be smaller than 16 MB. */
export const IMAGE_LIMIT = 16 * 1024 * 1024
/** Mastodon's IMAGE_STYLES `original`: at most 8,294,400 pixels (3840×2160), scaled down keeping the aspect. */
export const ORIGINAL_PIXELS = 8_294_400
/** Mastodon's CustomEmoji LOCAL_LIMIT: an emoji image must be smaller than 256 KB. */
export const EMOJI_LIMIT = 256 * 1024
/** Mastodon's JPEG quality (`-quality 90`, libvips `Q: 90`). */
const JPEG_QUALITY = 90

/**
 * What an image is stored as:
 * - `original`: an attachment, scaled down to ORIGINAL_PIXELS when larger, never enlarged;
 * - `avatar`: 400×400 and `header`: 1500×500, cropped to that shape around the centre and scaled (Mastodon's
 *   Account avatar `400x400#` and header `1500x500#` styles);
 * - `emoji`: a custom emoji, fitted into 400×400, never enlarged.
 */
export type ImageStyle = 'original' | 'avatar' | 'header' | 'emoji'

const CROPS: Partial<Record<ImageStyle, { width: number; height: number }>> = {
  avatar: { width: 400, height: 400 },
  header: { width: 1500, height: 500 },
}

export interface ReencodedImage {
  data: Buffer
  /** The content type, the same as the input's (`image/jpeg`, `image/png`, `image/webp`, `image/gif`). */
  type: string
  /** The file name extension of that type. */
  ext: string
  /** The size as shown (orientation applied), of one frame for an animation. */
  width: number
  height: number
  /** Several frames (a GIF, WebP or PNG animation), kept. */
  animated: boolean
}

/** Mastodon's MediaController answer when its image tools cannot identify the file (422). */
export const UNDECODABLE = 'File type of uploaded media could not be verified'

/** The 422 of a file at or over a size limit, in Paperclip's words. */
export const tooLarge = (limit: number) =>
  new Invalid(
    `Validation failed: File file size must be less than ${limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MB` : `${limit / 1024} KB`}`,
  )

/** A PNG's chunks: 8-byte signature, then length, type, data, CRC each. */
function* pngChunks(data: Buffer) {
  let at = 8
  while (at + 12 <= data.length) {
    const length = data.readUInt32BE(at)
    const type = data.subarray(at + 4, at + 8).toString('latin1')
    const end = at + 12 + length
    if (end > data.length) return
    yield { type, start: at, end }
    at = end
  }
}

/** An APNG: an `acTL` chunk before the first `IDAT` (libvips reads only its first frame). */
const isAnimatedPng = (data: Buffer) => {
  for (const chunk of pngChunks(data)) {
    if (chunk.type === 'acTL') return true
    if (chunk.type === 'IDAT') return false
  }
  return false
}

/**
 * An animation: a GIF, WebP or PNG with more than one frame. The hook for `gifv` (docs/media.md, "Images"): an
 * animated GIF attachment is to become a silent MP4, which is the video pipeline's work, not this module's.
 */
export async function isAnimated(data: Buffer): Promise<boolean> {
  const kind = imageType(data)
  if (kind?.type === 'image/png') return isAnimatedPng(data)
  if (kind?.type !== 'image/gif' && kind?.type !== 'image/webp') return false
  try {
    return ((await sharp(data, { animated: true }).metadata()).pages ?? 1) > 1
  } catch {
    return false
  }
}

/**
 * The chunks of a PNG that draw it, its colour profile and its animation; the text (`tEXt`, `zTXt`, `iTXt`,
 * where XMP lives), `eXIf`, `tIME` and any other ancillary chunk go. Used for APNG animations, which libvips
 * cannot write, so that they stay animated and still lose their metadata.
 */
const PNG_KEPT = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'iCCP',
  'sRGB',
  'gAMA',
  'cHRM',
  'sBIT',
  'acTL',
  'fcTL',
  'fdAT',
])
function stripPng(data: Buffer): Buffer {
  const kept: Buffer[] = [data.subarray(0, 8)]
  for (const chunk of pngChunks(data))
    if (PNG_KEPT.has(chunk.type)) kept.push(data.subarray(chunk.start, chunk.end))
  return Buffer.concat(kept)
}

/** The IHDR size of a PNG. */
const pngSize = (data: Buffer) => ({ width: data.readUInt32BE(16), height: data.readUInt32BE(20) })

/** The box of `style` for an image of width × height (as shown), or undefined when it stays as it is. */
function targetSize(style: ImageStyle, width: number, height: number) {
  if (style === 'original') {
    if (width * height <= ORIGINAL_PIXELS) return undefined
    // Mastodon's PixelGeometryParser, rounded down so the result is never over the limit.
    return {
      width: Math.max(1, Math.floor(Math.sqrt((ORIGINAL_PIXELS * width) / height))),
      height: Math.max(1, Math.floor(Math.sqrt((ORIGINAL_PIXELS * height) / width))),
    }
  }
  if (style === 'emoji') return width > 400 || height > 400 ? { width: 400, height: 400 } : undefined
  return CROPS[style]
}

/** Writes `pipeline` in the input's format, with Mastodon's quality for JPEG. */
function encode(pipeline: Sharp, type: string): Sharp {
  switch (type) {
    case 'image/jpeg':
      return pipeline.jpeg({ quality: JPEG_QUALITY, progressive: true })
    case 'image/webp':
      return pipeline.webp({ quality: JPEG_QUALITY })
    case 'image/gif':
      return pipeline.gif()
    default:
      return pipeline.png()
  }
}

/**
 * Re-encodes an image for `style` (see ImageStyle): metadata dropped but for the ICC profile, orientation
 * applied, scaled or cropped to the style's size, in the input's format; animations stay animated. Not an image
 * by its first bytes → 422 "not what they are reported to be"; an image that does not decode → 422 "could not be
 * verified", never a 500. Size limits on the input are the caller's (they differ by use).
 */
export async function reencodeImage(data: Buffer, style: ImageStyle): Promise<ReencodedImage> {
  const kind = imageType(data)
  if (!kind) throw notAnImage()
  try {
    // An APNG that needs no new size keeps its frames: only its metadata chunks go.
    if (kind.type === 'image/png' && isAnimatedPng(data)) {
      const { width, height } = pngSize(data)
      if (!targetSize(style, width, height))
        return { data: stripPng(data), type: kind.type, ext: kind.ext, width, height, animated: true }
      // Otherwise it is scaled as libvips reads it, its first frame (as Mastodon does with every APNG).
    }
    const pages = (await sharp(data, { animated: true }).metadata()).pages ?? 1
    const animated = pages > 1 && (kind.type === 'image/gif' || kind.type === 'image/webp')
    let pipeline = sharp(data, { animated })
    // Animations carry no EXIF orientation; libvips rotates one frame, so it is applied to stills only.
    if (!animated) pipeline = pipeline.autoOrient()
    pipeline = pipeline.keepIccProfile()
    const meta = await sharp(data).metadata()
    const shown = {
      width: meta.autoOrient?.width ?? meta.width,
      height: animated ? (meta.pageHeight ?? meta.height) : (meta.autoOrient?.height ?? meta.height),
    }
    if (!shown.width || !shown.height) throw new Error('no size')
    const target = targetSize(style, shown.width, shown.height)
    if (target)
      pipeline = pipeline.resize(target.width, target.height, {
        fit: CROPS[style] ? 'cover' : 'inside',
        position: 'centre',
        withoutEnlargement: style === 'original' || style === 'emoji',
      })
    const { data: out, info } = await encode(pipeline, kind.type).toBuffer({ resolveWithObject: true })
    return {
      data: out,
      type: kind.type,
      ext: kind.ext,
      width: info.width,
      height: animated ? (info.pageHeight ?? info.height) : info.height,
      animated,
    }
  } catch (err) {
    throw new Invalid(UNDECODABLE, undefined, { cause: err })
  }
}

/**
 * Re-encodes and stores an image under a new random name (`<32 hex>.<ext>`), served at `urls.media/<name>`.
 * Avatars and headers come here; attachments go through storeAttachmentImage (attachment.ts), which adds the
 * preview and blurhash.
 */
export async function storeImage(
  files: MediaFiles,
  data: Buffer,
  style: ImageStyle,
): Promise<{ file: string } & Omit<ReencodedImage, 'data' | 'ext'>> {
  const image = await reencodeImage(data, style)
  const file = newFileName(image.ext)
  await files.put(file, image.data, image.type)
  return { file, type: image.type, width: image.width, height: image.height, animated: image.animated }
}

/**
 * A custom emoji's image, for the custom-emoji work: Mastodon's limits (smaller than 256 KB, else 422; fitted into
 * 400×400), re-encoded and stored like every other image; GIF, WebP and PNG animations stay animated.
 */
export async function storeEmojiImage(files: MediaFiles, data: Buffer) {
  if (data.length >= EMOJI_LIMIT) throw tooLarge(EMOJI_LIMIT)
  return storeImage(files, data, 'emoji')
}

/** Mastodon's CustomEmoji IMAGE_MIME_TYPES: an emoji is a PNG, a GIF or a WebP image. */
export const EMOJI_TYPES = ['image/png', 'image/gif', 'image/webp']

/**
 * A custom emoji's files (docs/emoji.md): the image (storeEmojiImage) and its `static` version, the first frame as
 * a PNG (Mastodon's `static` style, `-coalesce`), which is the image itself when that is a still PNG already.
 * Another type than PNG, GIF or WebP is a 422, as Mastodon's content type validation.
 */
export async function storeEmojiFiles(
  files: MediaFiles,
  data: Buffer,
): Promise<{ file: string; staticFile: string; type: string }> {
  const kind = imageType(data)
  if (kind && !EMOJI_TYPES.includes(kind.type))
    throw new Invalid('Validation failed: Image content type is invalid')
  const stored = await storeEmojiImage(files, data)
  if (stored.type === 'image/png' && !stored.animated)
    return { file: stored.file, staticFile: stored.file, type: stored.type }
  try {
    const still = await sharp((await files.read(stored.file))!, { pages: 1 })
      .png()
      .toBuffer()
    const staticFile = newFileName('png')
    await files.put(staticFile, still, 'image/png')
    return { file: stored.file, staticFile, type: stored.type }
  } catch (err) {
    await files.remove(stored.file)
    throw new Invalid(UNDECODABLE, undefined, { cause: err })
  }
}
