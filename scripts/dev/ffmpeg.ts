import { installDebianPackage, which } from './apt'

/**
 * ffmpeg and ffprobe, which the accounts service and its worker run on video, audio and animated GIF uploads
 * (docs/media.md, "Video, audio and GIFs"): Debian's `ffmpeg` package is installed when they are missing and we
 * may, as Postgres and Redis are; otherwise the reason and the command to run.
 */
export function ensureFfmpeg() {
  const present = () => !!which('ffmpeg') && !!which('ffprobe')
  if (present() || (installDebianPackage('ffmpeg') && present())) return
  throw new Error(
    'ffmpeg and ffprobe are missing (video, audio and GIF uploads need them): sudo apt-get install -y ffmpeg',
  )
}
