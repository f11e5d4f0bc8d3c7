import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { encode } from 'blurhash'
import sharp from './sharp'
import { Invalid } from '@roost/errors'
import type { MediaFiles } from './files'
import { ffmpeg, MediaToolError, probe } from './ffmpeg'
import type { Probe, ProbeStream } from './ffmpeg'
import { isAnimated } from './images'
import { imageType, newFileName } from './storage'

/*
 * Video, audio and animated GIF attachments (docs/media.md, "Video, audio and GIFs"), with Mastodon's numbers
 * (its MediaAttachment model and Paperclip processors): checked with ffprobe on upload, then transcoded by the
 * accounts worker (or in the request, for the v1 API) to H.264/AAC MP4, silent MP4 for GIFs, MP3 for audio, with a
 * JPEG preview of the first frame, `meta` and a blurhash.
 */

/** Mastodon's VIDEO_LIMIT: the largest video, audio or GIF upload (99 MB). */
export const VIDEO_LIMIT = 99 * 1024 * 1024
/** Mastodon's MAX_VIDEO_MATRIX_LIMIT (3840×2160 pixels) and MAX_VIDEO_FRAME_RATE (120), refused on upload. */
export const MAX_VIDEO_MATRIX_LIMIT = 8_294_400
export const MAX_VIDEO_FRAME_RATE = 120
/** Mastodon's MAX_VIDEO_FRAMES (VIDEO_FORMAT `frames:v`): about five minutes at 120 fps are kept. */
const MAX_VIDEO_FRAMES = 36_000
/** The preview's box (Mastodon's VIDEO_STYLES `small`: 400×400, never enlarged). */
const SMALL_BOX = 400

/** What an upload that is not a still image is. */
export type AvKind = 'video' | 'audio' | 'gifv'

/** Mastodon's MediaController answer when the file cannot be identified (422). */
const UNDECODABLE = 'File type of uploaded media could not be verified'

/** A temporary directory for one run of the tools, removed afterwards whatever happens. */
async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'roost-media-'))
  try {
    return await work(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** A GIF of more than one frame: a `gifv`, transcoded to a silent MP4 as Mastodon does. */
export const isAnimatedGif = async (data: Buffer): Promise<boolean> =>
  imageType(data)?.type === 'image/gif' && isAnimated(data)

const videoStream = (p: Probe) =>
  p.streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic)
const audioStream = (p: Probe) => p.streams.find((s) => s.codec_type === 'audio')
const coverArt = (p: Probe) => p.streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic)

/** `num/den` as a number (ffprobe's frame rates); 0 when unknown. */
const rate = (r: string | undefined) => {
  const [num, den] = (r ?? '0/1').split('/').map(Number)
  return num && den ? num / den : 0
}

/** The container's extension for the stored source, so that the file served while it waits has a sane name. */
function extensionOf(p: Probe, kind: AvKind): string {
  const f = p.format.format_name ?? ''
  if (kind === 'gifv') return 'gif'
  if (f.includes('webm') || f.includes('matroska')) return 'webm'
  if (f.includes('mp4') || f.includes('mov')) return kind === 'audio' ? 'm4a' : 'mp4'
  if (f === 'mp3') return 'mp3'
  if (f === 'ogg') return 'ogg'
  if (f === 'wav') return 'wav'
  if (f === 'flac') return 'flac'
  return 'bin'
}

/**
 * An upload that is not a still image, checked at once (ffprobe): what it is, or a 422 when ffprobe cannot read it
 * or finds neither picture nor sound, and Mastodon's 422s for a video too large or too fast.
 */
export async function inspectUpload(
  data: Buffer,
): Promise<{ kind: AvKind; ext: string; contentType: string }> {
  if (await isAnimatedGif(data)) return { kind: 'gifv', ext: 'gif', contentType: 'image/gif' }
  if (data.length > VIDEO_LIMIT)
    throw new Invalid('Validation failed: File file size must be less than 99 MB')
  const p = await inTempDir(async (dir) => {
    const source = path.join(dir, 'upload')
    await writeFile(source, data)
    try {
      return await probe(source)
    } catch (err) {
      if (err instanceof MediaToolError) throw new Invalid(UNDECODABLE, undefined, { cause: err })
      throw err
    }
  })
  const video = videoStream(p)
  const audio = audioStream(p)
  if (video) {
    const { width = 0, height = 0 } = video
    // Mastodon's check_video_dimensions.
    if (width * height > MAX_VIDEO_MATRIX_LIMIT)
      throw new Invalid(`${width}x${height} videos are not supported`)
    const fps = rate(video.r_frame_rate)
    if (fps > MAX_VIDEO_FRAME_RATE) throw new Invalid(`${Math.floor(fps)}fps videos are not supported`)
    if (!width || !height || !Number(p.format.duration ?? video.duration)) throw new Invalid(UNDECODABLE)
    const ext = extensionOf(p, 'video')
    return { kind: 'video', ext, contentType: ext === 'webm' ? 'video/webm' : 'video/mp4' }
  }
  if (audio && Number(p.format.duration ?? audio.duration) > 0) {
    const ext = extensionOf(p, 'audio')
    return { kind: 'audio', ext, contentType: ext === 'mp3' ? 'audio/mpeg' : `audio/${ext}` }
  }
  throw new Invalid(UNDECODABLE)
}

/** Mastodon's `length`: `H:MM:SS.cc`. */
const lengthOf = (seconds: number) => {
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds - h * 3600 - m * 60
  return `${h}:${String(m).padStart(2, '0')}:${s.toFixed(2).padStart(5, '0')}`
}

/** The description of the audio stream Mastodon's meta shows (`aac (LC) (mp4a / 0x6134706D)`). */
const audioEncodeOf = (a: ProbeStream) => {
  const tag =
    a.codec_tag_string && !a.codec_tag_string.startsWith('[')
      ? ` (${a.codec_tag_string} / ${a.codec_tag})`
      : ''
  return `${a.codec_name ?? 'unknown'}${a.profile ? ` (${a.profile})` : ''}${tag}`
}

/** Mastodon's video/audio `meta` (its entity's documentation), from ffprobe's view of the processed file. */
export function metaOf(p: Probe, small?: { width: number; height: number }): Record<string, unknown> {
  const video = videoStream(p)
  const audio = audioStream(p)
  const duration = Number(p.format.duration ?? video?.duration ?? audio?.duration ?? 0)
  const bitrate = Number(p.format.bit_rate ?? 0)
  const meta: Record<string, unknown> = {
    length: lengthOf(duration),
    duration: Math.round(duration * 100) / 100,
  }
  if (video?.width && video.height) {
    const { width, height } = video
    Object.assign(meta, {
      fps: Math.floor(rate(video.r_frame_rate)),
      size: `${width}x${height}`,
      width,
      height,
      aspect: width / height,
    })
  }
  if (audio)
    Object.assign(meta, {
      audio_encode: audioEncodeOf(audio),
      audio_bitrate: audio.sample_rate ? `${audio.sample_rate} Hz` : null,
      audio_channels: audio.channel_layout ?? (audio.channels === 1 ? 'mono' : 'stereo'),
    })
  meta.original = video?.width
    ? {
        width: video.width,
        height: video.height,
        frame_rate: video.r_frame_rate,
        duration,
        bitrate,
      }
    : { duration, bitrate }
  if (small)
    meta.small = {
      width: small.width,
      height: small.height,
      size: `${small.width}x${small.height}`,
      aspect: small.width / small.height,
    }
  return meta
}

/** What processing makes of an attachment: the file to serve and what the entity shows of it. */
export interface ProcessedMedia {
  file: string
  contentType: string
  type: AvKind
  previewFile: string | null
  meta: Record<string, unknown>
  blurhash: string | null
}

export interface ProcessOptions {
  timeoutMs: number
  /** The share done, 0 to 1, as ffmpeg reports it. */
  onProgress?: (done: number) => void
  /**
   * Keep a file browsers already play as it is (a remote attachment: Mastodon transcodes what it copies only when
   * it must); an upload is always rewritten, which also drops its metadata.
   */
  keepPlayable?: boolean
}

/** Mastodon's VIDEO_PASSTHROUGH_OPTIONS: H.264 in yuv420p, with AAC sound or none, is copied, not encoded. */
const passesThrough = (video: ProbeStream, audio: ProbeStream | undefined) =>
  video.codec_name === 'h264' && video.pix_fmt === 'yuv420p' && (!audio || audio.codec_name === 'aac')

/** Mastodon's VIDEO_FORMAT (and its GIF transcoder's, without sound): H.264 MP4 for every browser. */
export const VIDEO_FORMAT = [
  '-movflags',
  'faststart',
  '-pix_fmt',
  'yuv420p',
  '-vf',
  "scale='trunc(iw/2)*2:trunc(ih/2)*2'",
  '-fps_mode',
  'cfr',
  '-c:v',
  'libx264',
  '-maxrate',
  '1300K',
  '-bufsize',
  '1300K',
  '-crf',
  '18',
  '-frames:v',
  String(MAX_VIDEO_FRAMES),
  '-map_metadata',
  '-1',
]

/** Audio browsers play as they are (a remote file kept as sent). */
const PLAYABLE_AUDIO = new Set(['mp3', 'aac', 'vorbis', 'opus', 'flac'])

/**
 * Transcodes `data` (the source of a `kind` attachment) and stores the result and its preview in `files`:
 * video to H.264/AAC MP4 (copied when already so), a GIF to silent MP4 (`gifv`), audio to MP3 (Mastodon's
 * AUDIO_STYLES, `q:a 2`). A video without sound becomes a `gifv`, as in Mastodon. The preview is the first frame
 * (a cover picture for audio), fitted in 400×400, as JPEG. A file the tools cannot handle is a MediaToolError.
 */
export async function processAv(
  files: MediaFiles,
  data: Buffer,
  kind: AvKind,
  options: ProcessOptions,
): Promise<ProcessedMedia> {
  return inTempDir(async (dir) => {
    const source = path.join(dir, 'source')
    await writeFile(source, data)
    const input = await probe(source)
    const video = videoStream(input)
    const audio = audioStream(input)
    const duration = Number(input.format.duration ?? 0) || undefined
    const run = (args: string[]) =>
      ffmpeg(['-i', source, ...args], {
        timeoutMs: options.timeoutMs,
        ...(duration ? { durationSeconds: duration } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      })
    let out: string
    let ext: string
    let contentType: string
    let type: AvKind
    if (kind === 'audio' || (!video && audio)) {
      if (!audio) throw new MediaToolError('no sound in an audio file')
      type = 'audio'
      const keep = options.keepPlayable && PLAYABLE_AUDIO.has(audio.codec_name ?? '')
      if (keep) {
        out = source
        ext = audio.codec_name === 'mp3' ? 'mp3' : extensionOf(input, 'audio')
        contentType = ext === 'mp3' ? 'audio/mpeg' : `audio/${ext === 'm4a' ? 'mp4' : ext}`
      } else {
        out = path.join(dir, 'out.mp3')
        ext = 'mp3'
        contentType = 'audio/mpeg'
        await run(['-map_metadata', '-1', '-vn', '-c:a', 'libmp3lame', '-q:a', '2', '-f', 'mp3', out])
      }
    } else {
      if (!video) throw new MediaToolError('no picture in a video file')
      type = kind === 'gifv' || !audio ? 'gifv' : 'video'
      out = path.join(dir, 'out.mp4')
      ext = 'mp4'
      contentType = 'video/mp4'
      const sound = type === 'gifv' ? ['-an'] : ['-c:a', 'aac']
      if (passesThrough(video, type === 'gifv' ? undefined : audio) && kind !== 'gifv') {
        const mp4 = (input.format.format_name ?? '').includes('mp4')
        if (options.keepPlayable && mp4) out = source
        else
          await run([
            '-map_metadata',
            '-1',
            '-c:v',
            'copy',
            ...(type === 'gifv' ? ['-an'] : ['-c:a', 'copy']),
            '-movflags',
            'faststart',
            '-f',
            'mp4',
            out,
          ])
      } else {
        // Above Mastodon's frame rate (a remote file: uploads are refused), the frames are thinned to it.
        const thin =
          rate(video.r_frame_rate) > MAX_VIDEO_FRAME_RATE ? ['-r', String(MAX_VIDEO_FRAME_RATE)] : []
        await run([...VIDEO_FORMAT, ...thin, ...sound, '-f', 'mp4', out])
      }
    }
    const result = await probe(out)
    const frame = await firstFrame(out, result, options.timeoutMs)
    const file = newFileName(ext)
    await files.put(file, out === source ? data : await readFile(out), contentType)
    let previewFile: string | null = null
    let blurhash: string | null = null
    let small: { width: number; height: number } | undefined
    if (frame) {
      const preview = await previewOf(frame)
      previewFile = `${file.split('.')[0]}-small.jpg`
      await files.put(previewFile, preview.jpeg, 'image/jpeg')
      blurhash = preview.blurhash
      small = preview.size
    }
    return { file, contentType, type, previewFile, meta: metaOf(result, small), blurhash }
  })
}

/** The first frame of a video, or an audio file's cover picture, as PNG; none for audio without one. */
async function firstFrame(file: string, p: Probe, timeoutMs: number): Promise<Buffer | undefined> {
  const stream = videoStream(p) ?? coverArt(p)
  if (!stream) return undefined
  try {
    const png = await ffmpeg(
      [
        '-ss',
        '0',
        '-i',
        file,
        '-map',
        `0:${stream.index}`,
        '-frames:v',
        '1',
        '-f',
        'image2pipe',
        '-c:v',
        'png',
        'pipe:1',
      ],
      { timeoutMs },
    )
    return png.length ? png : undefined
  } catch (err) {
    if (err instanceof MediaToolError) return undefined // no preview, still a playable file
    throw err
  }
}

/** A preview image fitted in Mastodon's 400×400 box as JPEG without metadata, its size and its blurhash. */
export async function previewOf(image: Buffer) {
  const jpeg = await sharp(image)
    .autoOrient()
    .resize(SMALL_BOX, SMALL_BOX, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 90 })
    .toBuffer({ resolveWithObject: true })
  const raw = await sharp(jpeg.data)
    .resize(32, 32, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  return {
    jpeg: jpeg.data,
    size: { width: jpeg.info.width, height: jpeg.info.height },
    blurhash: encode(new Uint8ClampedArray(raw.data), raw.info.width, raw.info.height, 4, 4),
  }
}

/**
 * A custom preview (the `thumbnail` parameter, Mastodon's `thumbnail`): an image, re-encoded as JPEG without its
 * metadata and fitted in the preview box; anything else is a 422.
 */
export async function storeThumbnail(files: MediaFiles, data: Buffer): Promise<string> {
  if (!imageType(data))
    throw new Invalid('Validation failed: Thumbnail has contents that are not what they are reported to be')
  let jpeg: Buffer
  try {
    jpeg = (await previewOf(data)).jpeg
  } catch (err) {
    throw new Invalid(UNDECODABLE, undefined, { cause: err })
  }
  const name = newFileName('jpg')
  await files.put(name, jpeg, 'image/jpeg')
  return name
}
