import type { Knex } from '@roost/db'
import type { AccountRow, MediaAttachmentRow } from '../db/rows'
import * as outbox from '../outbox/outbox'
import { reencodeAttachmentImage } from './attachment'
import type { MediaFiles } from './files'
import { storeImage } from './images'
import { imageType } from './storage'

export interface StripMetadataContext {
  db: Knex
  files: MediaFiles
  /** Receives the progress line as it changes. */
  progress: (line: string) => void
}

const PAGE = 100

/** Counts of one run, for the progress line and the summary. */
interface Tally {
  done: number
  total: number
  reencoded: number
  missing: number
  failed: number
}

const line = (t: Tally) =>
  `${t.done}/${t.total} images (${t.reencoded} re-encoded, ${t.missing} missing, ${t.failed} failed)`

/**
 * Re-encodes the images stored before images were re-encoded on upload (docs/media.md, "Images"), through
 * MediaFiles: each is read, re-encoded as an upload of its kind would be now, written under a new name (names are
 * never reused), the row pointed at the new file, and only then the old file removed. A file that is gone counts
 * as missing, one that does not decode as failed; both keep their rows as they are. Running it again re-encodes
 * again (harmless: the result is the same image under new names).
 */
export async function stripMetadata(ctx: StripMetadataContext): Promise<string> {
  const { db } = ctx
  const attachments = db('media_attachments').whereNot({ file: '' }).where('content_type', 'like', 'image/%')
  const avatars = db('accounts').whereNotNull('avatar_file')
  const headers = db('accounts').whereNotNull('header_file')
  const count = async (q: Knex.QueryBuilder) => Number((await q.clone().count({ n: '*' }).first())?.n ?? 0)
  const tally: Tally = {
    done: 0,
    total: (await count(attachments)) + (await count(avatars)) + (await count(headers)),
    reencoded: 0,
    missing: 0,
    failed: 0,
  }
  ctx.progress(line(tally))
  const step = (outcome: 'reencoded' | 'missing' | 'failed') => {
    tally[outcome] += 1
    tally.done += 1
    ctx.progress(line(tally))
  }

  for (let after = '0'; ;) {
    const rows: MediaAttachmentRow[] = await attachments
      .clone()
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
    if (!rows.length) break
    after = rows[rows.length - 1]!.id
    for (const row of rows) step(await reencodeAttachment(ctx, row))
  }
  for (const field of ['avatar_file', 'header_file'] as const) {
    const query = field === 'avatar_file' ? avatars : headers
    for (let after = '0'; ;) {
      const rows: AccountRow[] = await query.clone().where('id', '>', after).orderBy('id').limit(PAGE)
      if (!rows.length) break
      after = rows[rows.length - 1]!.id
      for (const row of rows) step(await reencodeProfileImage(ctx, row, field))
    }
  }
  return `OK ${line(tally)}`
}

/** Reads a stored file; undefined when it is gone or is not an image by its first bytes. */
async function readImage(files: MediaFiles, name: string) {
  const data = await files.read(name)
  return data && imageType(data) ? data : undefined
}

async function reencodeAttachment(ctx: StripMetadataContext, row: MediaAttachmentRow) {
  const data = await readImage(ctx.files, row.file)
  if (!data) return 'missing'
  let stored: Awaited<ReturnType<typeof reencodeAttachmentImage>>
  try {
    stored = await reencodeAttachmentImage(ctx.files, data)
  } catch {
    return 'failed'
  }
  const updated = await ctx
    .db('media_attachments')
    .where({ id: row.id, file: row.file })
    .update({
      file: stored.file,
      preview_file: stored.previewFile,
      content_type: stored.type,
      // New sizes; the focal point and anything else the row knew stay.
      meta: JSON.stringify({ ...(row.meta ?? {}), ...stored.meta }),
      blurhash: row.blurhash ?? stored.blurhash,
    })
  // Changed meanwhile (deleted, or re-encoded by another run): ours are not needed, the old files are not ours.
  const unused = updated ? [row.file, row.preview_file] : [stored.file, stored.previewFile]
  for (const file of unused) if (file) await ctx.files.remove(file)
  return 'reencoded'
}

async function reencodeProfileImage(
  ctx: StripMetadataContext,
  account: AccountRow,
  field: 'avatar_file' | 'header_file',
) {
  const old = account[field]!
  const data = await readImage(ctx.files, old)
  if (!data) return 'missing'
  let stored: Awaited<ReturnType<typeof storeImage>>
  try {
    stored = await storeImage(ctx.files, data, field === 'avatar_file' ? 'avatar' : 'header')
  } catch {
    return 'failed'
  }
  // The profile's image has a new URL: other servers learn it from the actor's Update, as after an upload.
  const updated = await ctx.db.transaction(async (trx) => {
    const n = await trx('accounts')
      .where({ id: account.id, [field]: old })
      .update({ [field]: stored.file, updated_at: trx.fn.now() })
    if (n) await outbox.add(trx, { event: 'account.updated', accountId: account.id })
    return n
  })
  await ctx.files.remove(updated ? old : stored.file)
  return 'reencoded'
}
