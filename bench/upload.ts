import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import type { BenchUser } from './fixtures'
import { cpuNow } from './procstat'
import type { Watched } from './procstat'
import type { BenchStack } from './stack'
import { round } from './write-path'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes
type Json = any

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * CPU used so far by the stack's processes, each with the children it has reaped: ffmpeg runs as a child of the
 * accounts worker and counts only once it has exited, through the worker's cutime/cstime.
 */
function stackCpuMs(watched: Watched[]): number {
  let total = 0
  for (const w of watched) {
    total += cpuNow([{ ...w, tree: true }])[w.name] ?? 0
  }
  return total
}

/** This process's CPU (every thread: libvips works on its own threads) and its reaped children's, in ms. */
function ownCpuMs(): number {
  const text = readFileSync('/proc/self/stat', 'utf8')
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  const n = (i: number) => Number(fields[i - 3])
  return ((n(14) + n(15) + n(16) + n(17)) * 1000) / ticks
}

/** A phone-sized photo: 4032×3024 of noise (so the encoder has real work), with EXIF as a phone writes it. */
async function photo(seed: number): Promise<Buffer> {
  const width = 4032
  const height = 3024
  const raw = Buffer.alloc(width * height * 3)
  let x = seed * 2654435761
  for (let i = 0; i < raw.length; i += 97) {
    x = (x * 1103515245 + 12345) >>> 0
    raw.fill(x & 0xff, i, Math.min(i + 97, raw.length))
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .withExif({ IFD0: { Make: 'BenchPhone', Artist: 'Bench Person', Orientation: '6' } })
    .toBuffer()
}

/**
 * The image work Roost does on such a photo, in sharp alone (docs/media.md, "Images"): decoded, turned upright,
 * scaled to Mastodon's 8,294,400 pixels, written again as progressive JPEG at quality 90 with its colour profile;
 * the 230,400-pixel preview and the 32-pixel thumbnail of the blurhash made from that result.
 */
async function sharpAlone(data: Buffer): Promise<void> {
  const meta = await sharp(data).metadata()
  const width = meta.autoOrient?.width ?? meta.width!
  const height = meta.autoOrient?.height ?? meta.height!
  const scale = Math.min(1, Math.sqrt(8_294_400 / (width * height)))
  const original = await sharp(data)
    .autoOrient()
    .keepIccProfile()
    .resize(Math.floor(width * scale), Math.floor(height * scale), { fit: 'inside' })
    .jpeg({ quality: 90, progressive: true })
    .toBuffer()
  const small = Math.sqrt(230_400 / (width * height))
  await sharp(original)
    .resize(Math.floor(width * small), Math.floor(height * small), { fit: 'fill' })
    .keepIccProfile()
    .jpeg({ quality: 90, progressive: true })
    .toBuffer()
  await sharp(original).resize(32, 32, { fit: 'inside' }).ensureAlpha().raw().toBuffer()
}

async function upload(stack: BenchStack, user: BenchUser, data: Buffer, type: string, name: string) {
  const form = new FormData()
  form.append('file', new Blob([data], { type }), name)
  const res = await fetch(`${stack.gatewayUrl}/api/v2/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
  })
  const body: Json = await res.json()
  if (res.status !== 200 && res.status !== 202)
    throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`)
  return body
}

/** Polls GET /api/v1/media/:id until it answers 200 (processed), as masto.js does. */
async function processed(stack: BenchStack, user: BenchUser, id: string, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const res = await fetch(`${stack.gatewayUrl}/api/v1/media/${id}`, {
      headers: { authorization: `Bearer ${user.token}` },
    })
    if (res.status === 200) return (await res.json()) as Json
    if (res.status !== 206) throw new Error(`GET media: ${res.status} ${await res.text()}`)
    if (Date.now() > deadline) throw new Error('the transcode did not finish')
    await sleep(100)
  }
}

/**
 * Images: `count` phone photos uploaded through the gateway two at a time (Roost re-encodes each: upright, no
 * metadata, within 3840×2160, a preview and a blurhash), against the same photos through `sharpAlone` in this
 * process. Both as images per CPU-second (all of the stack's processes for Roost, less their idle use); the ratio
 * is Roost's figure over sharp's: 1 would mean Roost spends nothing but the image work itself.
 */
export async function imageUploadScenario(
  stack: BenchStack,
  user: BenchUser,
  o: { count: number; idle: Record<string, number> },
) {
  const photos = await Promise.all(Array.from({ length: o.count }, (_, i) => photo(i + 1)))
  const baselineStart = ownCpuMs()
  for (const data of photos) await sharpAlone(data)
  const baselineCpuMs = ownCpuMs() - baselineStart

  const idlePerMs = Object.values(o.idle).reduce((a, b) => a + b, 0) / 1000
  const startedAt = performance.now()
  const before = stackCpuMs(stack.watched)
  const queue = [...photos]
  await Promise.all(
    [0, 1].map(async (lane) => {
      for (let data = queue.shift(); data; data = queue.shift())
        await upload(stack, user, data, 'image/jpeg', `photo-${lane}.jpg`)
    }),
  )
  const roostCpuMs = Math.max(
    1,
    stackCpuMs(stack.watched) - before - idlePerMs * (performance.now() - startedAt),
  )
  const roost = o.count / (roostCpuMs / 1000)
  const baseline = o.count / (baselineCpuMs / 1000)
  return {
    images: o.count,
    bytesEach: Math.round(photos.reduce((a, p) => a + p.length, 0) / photos.length),
    roostImagesPerCpuSecond: round(roost),
    sharpImagesPerCpuSecond: round(baseline),
    roostCpuMsPerImage: round(roostCpuMs / o.count),
    sharpCpuMsPerImage: round(baselineCpuMs / o.count),
    ratio: round(roost / baseline),
  }
}

/**
 * Video: a `seconds`-long 1280×720 30 fps clip with sound, encoded as MPEG-4 Part 2 (which browsers do not play,
 * so Roost must transcode it), uploaded `count` times through the gateway and polled until processed, against the
 * same file through `ffmpegAlone`, the transcode Roost runs, in a child of this process. Both as seconds of video
 * transcoded per CPU-second.
 */
export async function videoUploadScenario(
  stack: BenchStack,
  user: BenchUser,
  o: {
    count: number
    seconds: number
    idle: Record<string, number>
    /** The ffmpeg arguments of Roost's transcode of `input` to `output`, so the baseline does the same work. */
    transcodeArgs: (input: string, output: string) => string[]
  },
) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roost-bench-video-'))
  try {
    const source = path.join(dir, 'source.mp4')
    const made = spawnSync('ffmpeg', [
      ...['-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=30:duration=${o.seconds}`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${o.seconds}`],
      ...['-c:v', 'mpeg4', '-q:v', '4', '-c:a', 'mp3', '-shortest', source],
    ])
    if (made.status !== 0) throw new Error(`ffmpeg could not make the bench clip: ${made.stderr}`)
    const data = readFileSync(source)

    const baselineStart = ownCpuMs()
    for (let i = 0; i < o.count; i++) {
      const out = spawnSync('ffmpeg', ['-y', ...o.transcodeArgs(source, path.join(dir, `out-${i}.mp4`))])
      if (out.status !== 0) throw new Error(`ffmpeg alone failed: ${out.stderr}`)
    }
    const baselineCpuMs = ownCpuMs() - baselineStart

    const idlePerMs = Object.values(o.idle).reduce((a, b) => a + b, 0) / 1000
    const startedAt = performance.now()
    const before = stackCpuMs(stack.watched)
    for (let i = 0; i < o.count; i++) {
      const media = await upload(stack, user, data, 'video/mp4', `clip-${i}.mp4`)
      await processed(stack, user, String(media.id))
    }
    const roostCpuMs = Math.max(
      1,
      stackCpuMs(stack.watched) - before - idlePerMs * (performance.now() - startedAt),
    )
    const videoSeconds = o.count * o.seconds
    const roost = videoSeconds / (roostCpuMs / 1000)
    const baseline = videoSeconds / (baselineCpuMs / 1000)
    return {
      clips: o.count,
      secondsEach: o.seconds,
      bytesEach: data.length,
      roostVideoSecondsPerCpuSecond: round(roost),
      ffmpegVideoSecondsPerCpuSecond: round(baseline),
      ratio: round(roost / baseline),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
