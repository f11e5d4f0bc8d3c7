import type { Knex } from '@roost/db'
import { accountsById } from '../queries/accounts'
import type { MediaAttachmentRow, StatusEditRow, StatusRow } from '../db/rows'
import type { Urls } from './account'
import { renderAccount } from './account'
import { renderMediaAttachment } from './media_attachment'
import { attachmentsOf } from './status'
import { statusHtml } from '../text/status'

/**
 * Mastodon's StatusEdit entity for each version of a status, oldest first. A status never edited has one version:
 * itself as it is, dated when it was posted (or last edited).
 */
export async function renderStatusEdits(db: Knex, urls: Urls, status: StatusRow, edits: StatusEditRow[]) {
  const [media, mentions] = await Promise.all([
    db('media_attachments').where({ status_id: status.id }).orderBy('id') as Promise<MediaAttachmentRow[]>,
    db('mentions').where({ status_id: status.id }).pluck('account_id') as Promise<string[]>,
  ])
  const versions: StatusEditRow[] = edits.length
    ? edits
    : [
        {
          id: '0',
          status_id: status.id,
          account_id: status.account_id,
          text: status.text,
          spoiler_text: status.spoiler_text,
          sensitive: status.sensitive,
          ordered_media_attachment_ids: attachmentsOf(status, media).map((m) => m.id),
          media_descriptions: attachmentsOf(status, media).map((m) => m.description),
          poll_options: null,
          created_at: status.edited_at ?? status.created_at,
        },
      ]
  const accounts = await accountsById(db, [
    status.account_id,
    ...mentions,
    ...versions.flatMap((v) => v.account_id ?? []),
  ])
  const mentioned = new Map(
    mentions.map((id) => [accounts.get(id)!.username.toLowerCase(), accounts.get(id)!]),
  )
  return versions.map((v) => ({
    // A remote status's versions are its HTML, sanitised when they arrived (docs/federation.md).
    content: status.uri ? v.text : statusHtml(v.text, mentioned, urls),
    spoiler_text: v.spoiler_text,
    sensitive: v.sensitive,
    created_at: new Date(v.created_at).toISOString(),
    account: renderAccount(accounts.get(v.account_id ?? status.account_id)!, urls),
    // Each attachment as it was in that version: the description it had then.
    media_attachments: (v.ordered_media_attachment_ids ?? []).flatMap((id, i) => {
      const row = media.find((m) => m.id === id)
      return row
        ? [renderMediaAttachment({ ...row, description: v.media_descriptions?.[i] ?? null }, urls)]
        : []
    }),
    emojis: [],
    ...(v.poll_options ? { poll: { options: v.poll_options.map((title) => ({ title })) } } : {}),
  }))
}
