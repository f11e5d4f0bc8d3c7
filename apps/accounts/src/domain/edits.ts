import type { Knex } from '@roost/db'
import type { AccountRow, MediaAttachmentRow, StatusRow } from '../db/rows'
import { attachmentsOf } from '../entities/status'
import type { Focus } from '../media/attachment'
import { focusOfMeta } from '../media/focus'
import * as outbox from '../outbox/outbox'
import type { NewPoll } from './polls'
import { replacePoll } from './polls'
import { attachableMedia, checkText, mentionedAccounts, storeMentionsAndTags } from './statuses'

/**
 * An edit as Mastodon's `PUT /api/v1/statuses/:id` means it: the new version replaces text, content warning,
 * sensitivity, attachments (those not listed are removed) and poll; the language stays when not given.
 */
export interface StatusEdit {
  text: string
  spoilerText: string
  sensitive: boolean
  language?: string
  mediaIds: string[]
  /** New descriptions of attachments that stay, by attachment id. */
  descriptions: Map<string, string | null>
  /** New focal points of attachments that stay, by attachment id (`media_attributes[][focus]`). */
  focuses?: Map<string, Focus>
  /** The poll of the new version; none removes the status's poll. */
  poll?: NewPoll
}

/** The status's current attachments, in order. */
async function currentMedia(trx: Knex, status: StatusRow): Promise<MediaAttachmentRow[]> {
  return attachmentsOf(status, await trx('media_attachments').where({ status_id: status.id }).orderBy('id'))
}

/** The options of a status's poll (null without one), as an edit records them. */
export const pollOptionsOf = async (trx: Knex, statusId: string): Promise<string[] | null> =>
  (await trx('polls').where({ status_id: statusId }).first('options'))?.options ?? null

/** A StatusEdit row recording the status as it is now (Mastodon's `Status#snapshot!`). */
export async function snapshot(
  trx: Knex,
  status: StatusRow,
  media: MediaAttachmentRow[],
  pollOptions: string[] | null,
  editorId: string,
  at: Date,
) {
  const [row] = await trx('status_edits')
    .insert({
      status_id: status.id,
      account_id: editorId,
      text: status.text,
      spoiler_text: status.spoiler_text,
      sensitive: status.sensitive,
      ordered_media_attachment_ids: media.map((m) => m.id),
      media_descriptions: media.map((m) => m.description),
      poll_options: pollOptions,
      created_at: at,
    })
    .returning('id')
  return row.id as string
}

/**
 * Mastodon's UpdateStatusService, inside the caller's transaction: the first edit saves the original version, then
 * each edit saves the new one; removed attachments stay on the status so the history can show them. An edit that
 * changes nothing is swallowed (no new version, no `edited_at`). Returns the status as it is now, whether it
 * changed, and the accounts the new text mentions that the old one did not.
 */
export async function editStatus(
  trx: Knex,
  status: StatusRow,
  editorId: string,
  edit: StatusEdit,
): Promise<{ status: StatusRow; changed: boolean; newlyMentioned: AccountRow[] }> {
  const previous = await currentMedia(trx, status)
  const previousPoll = await pollOptionsOf(trx, status.id)
  const media = await attachableMedia(trx, status.account_id, edit.mediaIds, status.id)
  checkText(edit.text, edit.spoilerText, media.length > 0)

  let mediaChanged = previous.map((m) => m.id).join() !== media.map((m) => m.id).join()
  for (const m of media) {
    const description = edit.descriptions.get(m.id)
    if (description !== undefined && description !== m.description) {
      await trx('media_attachments').where({ id: m.id }).update({ description })
      m.description = description
      mediaChanged = true
    }
    // A new focal point is a change too (Mastodon's `significantly_changed?` counts `file_meta`).
    const focus = edit.focuses?.get(m.id)
    const before = focusOfMeta(m.meta)
    if (focus && (focus.x !== before?.x || focus.y !== before?.y)) {
      m.meta = { ...(m.meta ?? {}), focus }
      await trx('media_attachments')
        .where({ id: m.id })
        .update({ meta: JSON.stringify(m.meta) })
      mediaChanged = true
    }
  }
  const pollChanged = await replacePoll(trx, status.id, status.account_id, edit.poll)
  const next = {
    text: edit.text,
    spoiler_text: edit.spoilerText,
    // A content warning always hides the media too, as on create.
    sensitive: edit.sensitive || !!edit.spoilerText,
    language: edit.language || status.language,
  }
  const changed =
    mediaChanged ||
    pollChanged ||
    next.text !== status.text ||
    next.spoiler_text !== status.spoiler_text ||
    next.sensitive !== status.sensitive ||
    next.language !== status.language
  if (!changed) return { status, changed, newlyMentioned: [] }

  if (!(await trx('status_edits').where({ status_id: status.id }).first('id')))
    await snapshot(trx, status, previous, previousPoll, status.account_id, status.created_at)
  await trx('media_attachments')
    .whereIn(
      'id',
      media.map((m) => m.id),
    )
    .update({ status_id: status.id })
  const [updated]: StatusRow[] = await trx('statuses')
    .where({ id: status.id })
    .update({
      ...next,
      ordered_media_attachment_ids: media.map((m) => m.id),
      edited_at: trx.fn.now(),
    })
    .returning('*')
  const editId = await snapshot(
    trx,
    updated!,
    media,
    await pollOptionsOf(trx, status.id),
    editorId,
    updated!.edited_at!,
  )

  const before = new Set<string>(await trx('mentions').where({ status_id: status.id }).pluck('account_id'))
  const mentioned = await mentionedAccounts(trx, next.text)
  await storeMentionsAndTags(trx, status.id, next.text, mentioned)
  // The accounts worker notifies new mentions and those who boosted it (`update`).
  await outbox.add(trx, {
    event: 'status.updated',
    statusId: status.id,
    accountId: status.account_id,
    editId,
  })
  return { status: updated!, changed, newlyMentioned: mentioned.filter((a) => !before.has(a.id)) }
}
