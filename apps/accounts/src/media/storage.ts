import { randomBytes } from 'node:crypto'
import path from 'node:path'
import type { Request, Response } from 'express'
import { Invalid } from '@roost/errors'
import type { AccountsContext } from '../context'
import { mediaUrl, urlsOf } from '../entities/account'

/** Images Roost accepts, recognised by their first bytes rather than the client's word. */
const SIGNATURES: { type: string; ext: string; matches: (b: Buffer) => boolean }[] = [
  {
    type: 'image/png',
    ext: 'png',
    matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { type: 'image/jpeg', ext: 'jpg', matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', ext: 'gif', matches: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8' },
  {
    type: 'image/webp',
    ext: 'webp',
    matches: (b) =>
      b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
]

/** The 422 for an upload that is not an image by its first bytes. */
export const notAnImage = () =>
  new Invalid('Validation failed: File has contents that are not what they are reported to be')

export function imageType(data: Buffer) {
  return SIGNATURES.find((s) => s.matches(data))
}

/** A new random file name (`<32 hex>.<ext>`); its preview is `<32 hex>-small.<ext>`. */
export const newFileName = (ext: string) => `${randomBytes(16).toString('hex')}.${ext}`

// Video and audio too (docs/media.md, "Video, audio and GIFs"): transcoded files and sources waiting for the worker.
const FILE_NAME = /^[0-9a-f]{32}(-small)?\.(png|jpg|gif|webp|mp4|webm|mp3|m4a|ogg|wav|flac|bin)$/

/**
 * GET /media/:file — the stored files; names are random, so they can be cached forever. With S3_ENABLED the
 * files are in the bucket: a permanent redirect to the file's URL there, so that the URLs of files moved from
 * MEDIA_DIR to the bucket (which other servers keep) still lead to them (docs/media.md, "Where files are kept").
 */
export function serveMedia(ctx: AccountsContext, req: Request, res: Response) {
  const file = String(req.params.file)
  if (!FILE_NAME.test(file)) return res.status(404).json({ error: 'Not Found' })
  if (ctx.config.S3_ENABLED) return res.redirect(301, mediaUrl(urlsOf(ctx.config), file))
  res.sendFile(file, { root: path.resolve(ctx.config.MEDIA_DIR), maxAge: '365d', immutable: true }, (err) => {
    if (err && !res.headersSent) res.status(404).json({ error: 'Not Found' })
  })
}
