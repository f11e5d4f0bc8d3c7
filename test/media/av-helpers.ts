import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import sharp from 'sharp'

const run = promisify(execFile)

/** A file made by ffmpeg from its lavfi sources (`testsrc`, `sine`), e.g. `['-f', 'lavfi', '-i', 'testsrc=…']`. */
export async function generate(args: string[], ext: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'roost-test-av-'))
  try {
    const out = path.join(dir, `out.${ext}`)
    await run('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', ...args, '-y', out])
    return await readFile(out)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** A 2-second 320×240 H.264/AAC MP4 with a tone. */
export const mp4 = () =>
  generate(
    [
      ...['-f', 'lavfi', '-i', 'testsrc=duration=2:size=320x240:rate=25'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
    ],
    'mp4',
  )

/** A 2-second WebM (VP8/Vorbis): not playable everywhere, so it is transcoded. */
export const webm = () =>
  generate(
    [
      ...['-f', 'lavfi', '-i', 'testsrc=duration=2:size=320x240:rate=25'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2'],
      ...['-c:v', 'libvpx', '-b:v', '200k', '-c:a', 'libvorbis', '-shortest'],
    ],
    'webm',
  )

/** A 3-second MP3 tone. */
export const mp3 = () =>
  generate(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', '-c:a', 'libmp3lame'], 'mp3')

/** A 3-second WAV tone. */
export const wav = () => generate(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3'], 'wav')

/** An animated GIF of 4 frames (sharp: pages stacked vertically). */
export async function animatedGif(): Promise<Buffer> {
  const frames = await Promise.all(
    ['#c00', '#0c0', '#00c', '#cc0'].map((color) =>
      sharp({ create: { width: 64, height: 48, channels: 3, background: color } })
        .raw()
        .toBuffer(),
    ),
  )
  return sharp(Buffer.concat(frames), { raw: { width: 64, height: 48 * 4, channels: 3, pageHeight: 48 } })
    .gif({ delay: [100, 100, 100, 100], loop: 0 })
    .toBuffer()
}

/** What ffprobe reads of `data`: its streams' codecs and the duration. */
export async function probeBuffer(data: Buffer) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'roost-test-probe-'))
  try {
    const file = path.join(dir, 'file')
    await writeFile(file, data)
    const { stdout } = await run('ffprobe', [
      ...['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file],
    ])
    const parsed = JSON.parse(stdout) as {
      format: { duration: string }
      streams: { codec_type: string; codec_name: string }[]
    }
    return {
      duration: Number(parsed.format.duration),
      codecs: parsed.streams.map((s) => `${s.codec_type}:${s.codec_name}`),
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export const download = async (url: string) => {
  const res = await fetch(url)
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`)
  return Buffer.from(await res.arrayBuffer())
}
