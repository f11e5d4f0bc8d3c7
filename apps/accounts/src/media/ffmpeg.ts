import { spawn } from 'node:child_process'

/**
 * ffmpeg and ffprobe, run as child processes (docs/media.md, "Video, audio and GIFs"). Both come from the system
 * (Debian's `ffmpeg` package: `npm start` and `npm test` install it, the Dockerfile too). Every run has a deadline
 * and is killed when it passes it, so a file that makes ffmpeg loop never holds a job for good.
 */

/** A file ffmpeg or ffprobe could not read or convert, or a run past its deadline: the file's fault, not ours. */
export class MediaToolError extends Error {}

/** ffprobe's view of a file (`-show_format -show_streams`), the fields Roost reads. */
export interface Probe {
  format: { format_name?: string; duration?: string; bit_rate?: string; size?: string }
  streams: ProbeStream[]
}
export interface ProbeStream {
  index: number
  codec_type?: string
  codec_name?: string
  profile?: string
  codec_tag_string?: string
  codec_tag?: string
  width?: number
  height?: number
  pix_fmt?: string
  r_frame_rate?: string
  avg_frame_rate?: string
  sample_rate?: string
  channels?: number
  channel_layout?: string
  duration?: string
  disposition?: { attached_pic?: number }
}

interface Run {
  stdout: Buffer
  stderr: string
}

/** Runs `command` with `args` to its end, or kills it at `timeoutMs`; a non-zero exit is a MediaToolError. */
function run(
  command: string,
  args: string[],
  options: { timeoutMs: number; onStdout?: (chunk: Buffer) => void },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    let err = ''
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, options.timeoutMs)
    child.stdout.on('data', (chunk: Buffer) => (options.onStdout ? options.onStdout(chunk) : out.push(chunk)))
    // Only the end of the error output is worth keeping: it says why.
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-4000)))
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e) // ffmpeg missing: not the file's fault
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      if (timedOut) reject(new MediaToolError(`${command} did not finish within ${options.timeoutMs} ms`))
      else if (code !== 0)
        reject(new MediaToolError(`${command} failed (${code}): ${err.trim().slice(-500)}`))
      else resolve({ stdout: Buffer.concat(out), stderr: err })
    })
  })
}

/** ffprobe's format and streams of the file at `path`; a file it cannot read is a MediaToolError. */
export async function probe(path: string, timeoutMs = 30_000): Promise<Probe> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path],
    { timeoutMs },
  )
  let parsed: Partial<Probe>
  try {
    parsed = JSON.parse(stdout.toString('utf8')) as Partial<Probe>
  } catch {
    throw new MediaToolError('ffprobe did not answer JSON')
  }
  return { format: parsed.format ?? {}, streams: parsed.streams ?? [] }
}

/**
 * Runs ffmpeg with `args` (inputs, options, output). With `durationSeconds`, `onProgress` hears the share done
 * (0 to 1) from ffmpeg's `-progress` output as it goes.
 */
export async function ffmpeg(
  args: string[],
  options: { timeoutMs: number; durationSeconds?: number; onProgress?: (done: number) => void },
): Promise<Buffer> {
  const { durationSeconds, onProgress } = options
  let pending = ''
  const progress = (chunk: Buffer) => {
    pending += chunk.toString('utf8')
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      const m = /^out_time_us=(\d+)/.exec(line)
      if (m && durationSeconds && onProgress)
        onProgress(Math.min(1, Number(m[1]) / 1_000_000 / durationSeconds))
    }
  }
  const withProgress = onProgress !== undefined
  const { stdout } = await run(
    'ffmpeg',
    [
      '-nostdin',
      '-hide_banner',
      '-loglevel',
      'error',
      ...(withProgress ? ['-progress', 'pipe:1', '-nostats'] : []),
      ...args,
    ],
    { timeoutMs: options.timeoutMs, ...(withProgress ? { onStdout: progress } : {}) },
  )
  return stdout
}
