import type { Knex } from '@roost/db'
import type { VISIBILITIES } from '@roost/routes'
import { forbidden, HttpError, recordNotFound, unprocessable } from '@roost/service'
import type { AccountRow } from '../entities/account'
import type { MediaAttachmentRow } from '../entities/media_attachment'
import type { StatusRow } from '../entities/status'
import { MENTION } from '../entities/status'
import * as outbox from '../outbox/outbox'
import type { NewPoll } from './polls'
import { createPoll } from './polls'
import { parseId } from './records'
import { bigintArray, follows } from './relationships'
import { storeTags, tagNamesOf } from './tags'
export type Visibility = (typeof VISIBILITIES)[number]
export const MAX_CHARS = 500
export const MAX_MEDIA = 4

/**
 * Restricts a statuses query (aliased `statuses`) to what `viewerId` may read (Mastodon's StatusPolicy#show?):
 * anyone: public and unlisted; the author: everything; followers: private too; mentioned accounts: their
 * mentions. Authors who block the viewer and suspended authors show nothing.
 */
export function visibleTo(db: Knex, query: Knex.QueryBuilder, viewerId?: string) {
  query.whereNotExists(
    db('accounts').whereRaw('accounts.id = statuses.account_id').whereNotNull('suspended_at'),
  )
  if (!viewerId) return query.whereIn('statuses.visibility', ['public', 'unlisted'])
  return query.where((q) =>
    q.where('statuses.account_id', viewerId).orWhere((others) =>
      others
        .whereNotExists(
          db('blocks')
            .whereRaw('blocks.account_id = statuses.account_id')
            .where('blocks.target_account_id', viewerId),
        )
        .where((v) =>
          v
            .whereIn('statuses.visibility', ['public', 'unlisted'])
            .orWhere((p) =>
              p
                .where('statuses.visibility', 'private')
                .whereExists(
                  db('follows')
                    .whereRaw('follows.target_account_id = statuses.account_id')
                    .where('follows.account_id', viewerId),
                ),
            )
            .orWhereExists(
              db('mentions')
                .whereRaw('mentions.status_id = statuses.id')
                .where('mentions.account_id', viewerId),
            ),
        ),
    ),
  )
}

/**
 * `visibleTo` for the statuses of one author (Mastodon's Status.permitted_for), with every fact that is the same
 * for all rows read once rather than checked per row: the caller has already left out a suspended author and one
 * who blocks the viewer; whether the viewer follows the author is one lookup; the statuses that mention the viewer
 * are one uncorrelated subquery. Boosts of accounts in `hidden` (`hiddenAccounts`: the viewer blocks or mutes
 * them, or they block the viewer) are left out, as Mastodon does in every listing. With the (account_id, id) index
 * the listing then reads its page in order whatever the planner's statistics say (docs/performance.md).
 */
export async function authorStatusesVisibleTo(
  db: Knex,
  query: Knex.QueryBuilder,
  authorId: string,
  viewerId?: string,
  hidden: string[] = [],
) {
  if (!viewerId) return query.whereIn('statuses.visibility', ['public', 'unlisted'])
  if (viewerId !== authorId) {
    const visibilities = ['public', 'unlisted']
    if (await follows(db, viewerId, authorId)) visibilities.push('private')
    query.where((q) =>
      q
        .whereIn('statuses.visibility', visibilities)
        .orWhereIn('statuses.id', db('mentions').where('mentions.account_id', viewerId).select('status_id')),
    )
  }
  if (hidden.length)
    query.where((q) =>
      q.whereNull('statuses.reblog_of_id').orWhereNotExists(
        db('statuses as originals')
          .whereRaw('originals.id = statuses.reblog_of_id')
          .whereRaw('originals.account_id = ANY (?::bigint[])', [bigintArray(hidden)]),
      ),
    )
  return query
}

/** A status the viewer may read, else 404 "Record not found" (or `notFound` for a different text). */
export async function findVisibleStatus(
  db: Knex,
  id: string | undefined,
  viewerId?: string,
  notFound: () => HttpError = recordNotFound,
): Promise<StatusRow> {
  const row: StatusRow | undefined = id
    ? await visibleTo(db, db('statuses').where('statuses.id', id), viewerId).first('statuses.*')
    : undefined
  if (!row) throw notFound()
  return row
}

/** Mastodon's status validations: some text unless there is media, and at most 500 characters with the warning. */
export function checkText(text: string, spoilerText: string, hasMedia: boolean) {
  if (!text.trim() && !hasMedia) throw unprocessable("Validation failed: Text can't be blank")
  if ([...text].length + [...spoilerText].length > MAX_CHARS)
    throw unprocessable(`Validation failed: Text character limit of ${MAX_CHARS} exceeded`)
}

export interface NewStatus {
  text: string
  spoilerText: string
  sensitive: boolean
  visibility: Visibility
  language: string | null
  inReplyToId?: string
  mediaIds: string[]
  /** The OAuth app the status is posted with (shown to its author). */
  applicationId?: string | null
  poll?: NewPoll
}

/**
 * The author's uploads named by `ids`, in that order, that may go on a status: not attached yet (nor held by a
 * scheduled status), or already on `statusId` (an edit). Too many, or one that is not the author's or is on another
 * status → 422.
 */
export async function attachableMedia(
  trx: Knex,
  accountId: string,
  ids: string[],
  statusId?: string,
): Promise<MediaAttachmentRow[]> {
  if (ids.length > MAX_MEDIA)
    throw unprocessable(`Validation failed: Cannot attach more than ${MAX_MEDIA} files`)
  const rows: MediaAttachmentRow[] = ids.length
    ? await trx('media_attachments')
        .where({ account_id: accountId })
        .whereNull('scheduled_status_id')
        .where((q) =>
          statusId ? q.whereNull('status_id').orWhere('status_id', statusId) : q.whereNull('status_id'),
        )
        .whereIn(
          'id',
          ids.filter((id) => parseId(id)),
        )
        .forUpdate()
    : []
  const missing = ids.filter((id) => !rows.some((m) => m.id === id))
  if (missing.length) throw unprocessable(`Validation failed: Media ${missing.join(', ')} not found`)
  return [...new Set(ids)].map((id) => rows.find((m) => m.id === id)!)
}

/** The local accounts `@named` in a status's text (not suspended ones). */
export async function mentionedAccounts(trx: Knex, text: string): Promise<AccountRow[]> {
  const names = [...new Set([...text.matchAll(MENTION)].map((m) => m[1]!.toLowerCase()))]
  return names.length
    ? await trx('accounts').whereRaw('lower(username) = any(?)', [names]).whereNull('suspended_at')
    : []
}

/** Records a status's mentions and hashtags, replacing those of its previous text (an edit). */
export async function storeMentionsAndTags(
  trx: Knex,
  statusId: string,
  text: string,
  mentioned: AccountRow[],
) {
  await trx('mentions').where({ status_id: statusId }).delete()
  if (mentioned.length)
    await trx('mentions').insert(mentioned.map((a) => ({ status_id: statusId, account_id: a.id })))
  await storeTags(trx, statusId, text)
}

async function countStatus(trx: Knex, accountId: string, visibility: Visibility, delta: 1 | -1) {
  // Mastodon does not count direct messages in statuses_count.
  if (visibility === 'direct') return
  const q = trx('accounts').where({ id: accountId })
  if (delta > 0)
    await q.update({ statuses_count: trx.raw('statuses_count + 1'), last_status_at: trx.fn.now() })
  else await q.where('statuses_count', '>', 0).decrement('statuses_count', 1)
}

/** The status a new one replies to: one the author can see and not a boost, else 404 (Mastodon's wording). */
export async function replyTarget(
  trx: Knex,
  author: AccountRow,
  inReplyToId: string | undefined,
): Promise<StatusRow | undefined> {
  const gone = () => new HttpError(404, 'The post you are trying to reply to does not appear to exist.')
  if (!inReplyToId) return undefined
  const replyTo = await findVisibleStatus(trx, inReplyToId, author.id, gone)
  if (replyTo.reblog_of_id) throw gone()
  return replyTo
}

/**
 * Mastodon's PostStatusService for local accounts: validates, stores the status with its mentions, tags and
 * media, and records `status.created` (the accounts worker notifies and fans out).
 */
export async function createStatus(trx: Knex, author: AccountRow, s: NewStatus) {
  checkText(s.text, s.spoilerText, s.mediaIds.length > 0)

  const replyTo = await replyTarget(trx, author, s.inReplyToId)

  const media = await attachableMedia(trx, author.id, s.mediaIds)
  const mentioned = await mentionedAccounts(trx, s.text)
  // A reply joins its parent's thread; anything else opens one.
  const conversationId =
    replyTo?.conversation_id ?? (await trx('conversations').insert({}).returning('id'))[0].id
  const [row]: StatusRow[] = await trx('statuses')
    .insert({
      account_id: author.id,
      conversation_id: conversationId,
      text: s.text,
      spoiler_text: s.spoilerText,
      // A content warning always hides the media too, as in Mastodon.
      sensitive: s.sensitive || !!s.spoilerText,
      visibility: s.visibility,
      language: s.language,
      in_reply_to_id: replyTo?.id ?? null,
      in_reply_to_account_id: replyTo?.account_id ?? null,
      application_id: s.applicationId ?? null,
      ordered_media_attachment_ids: media.length > 1 ? media.map((m) => m.id) : null,
    })
    .returning('*')
  if (media.length)
    await trx('media_attachments')
      .whereIn(
        'id',
        media.map((m) => m.id),
      )
      .update({ status_id: row!.id })
  await storeMentionsAndTags(trx, row!.id, s.text, mentioned)
  if (s.poll) await createPoll(trx, row!.id, author.id, s.poll)
  await countStatus(trx, author.id, s.visibility, 1)
  await outbox.add(trx, { event: 'status.created', statusId: row!.id, accountId: author.id })
  return row!
}

/**
 * Deletes a status and the reblogs of it, keeping every author's counter in step. Records `reblog.removed` for
 * each reblog and `status.deleted` for the status itself (or `reblog.removed`, if it is a reblog), with the
 * audience facts that go with the row.
 */
export async function deleteStatus(trx: Knex, status: StatusRow) {
  const reblogs: StatusRow[] = await trx('statuses').where({ reblog_of_id: status.id })
  for (const reblog of [...reblogs, status]) await countStatus(trx, reblog.account_id, reblog.visibility, -1)
  const removedReblogs = reblogs.map((r) => reblogEvent('reblog.removed', r, status.account_id))
  if (status.reblog_of_id) {
    const original = await trx('statuses').where({ id: status.reblog_of_id }).first('account_id')
    await outbox.add(trx, ...removedReblogs, reblogEvent('reblog.removed', status, original.account_id))
  } else {
    const [mentioned, tags] = await Promise.all([
      trx('mentions').where({ status_id: status.id }).pluck('account_id'),
      tagNamesOf(trx, status.id),
    ])
    await outbox.add(trx, ...removedReblogs, {
      event: 'status.deleted',
      statusId: status.id,
      accountId: status.account_id,
      visibility: status.visibility,
      inReplyToId: status.in_reply_to_id,
      inReplyToAccountId: status.in_reply_to_account_id,
      mentionedAccountIds: mentioned,
      tags,
    })
  }
  await trx('statuses').where({ id: status.id }).delete()
}

const reblogEvent = (
  event: 'reblog.created' | 'reblog.removed',
  reblog: StatusRow,
  originalAccountId: string,
) => ({
  event,
  statusId: reblog.id,
  accountId: reblog.account_id,
  reblogOfId: reblog.reblog_of_id!,
  reblogOfAccountId: originalAccountId,
})

/** Mastodon's ReblogService: one reblog per account and status; private and direct posts cannot be boosted. */
export async function reblog(
  trx: Knex,
  account: AccountRow,
  original: StatusRow,
  visibility: Visibility,
): Promise<StatusRow> {
  const existing: StatusRow | undefined = await trx('statuses')
    .where({ account_id: account.id, reblog_of_id: original.id })
    .first()
  if (existing) return existing
  if (original.visibility === 'private' || original.visibility === 'direct') throw forbidden()
  const [row]: StatusRow[] = await trx('statuses')
    .insert({ account_id: account.id, reblog_of_id: original.id, visibility, sensitive: false })
    .returning('*')
  await countStatus(trx, account.id, visibility, 1)
  await outbox.add(trx, reblogEvent('reblog.created', row!, original.account_id))
  return row!
}
