import type { Knex } from '@roost/db'
import type { VISIBILITIES } from '@roost/events'
import { Forbidden, Invalid, NotFound } from '@roost/errors'
import type { AccountRow, MediaAttachmentRow, StatusRow } from '../db/rows'
import type { NewStatusFacts } from '../entities/status'
import { ANY_MENTION } from '../text/status'
import * as outbox from '../outbox/outbox'
import type { NewPoll } from './polls'
import { createPoll } from './polls'
import { parseId } from './records'
import type { Hidden } from './relationships'
import { follows, hiddenAccountSql, NOBODY_HIDDEN } from './relationships'
import { storeTags, tagNamesOf } from './tags'
import { bigintArray } from '../queries/sql'
import { attachQuote, localQuotePolicy, quotableStatus, quoteVisibility } from './quotes'
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
  hidden: Hidden = NOBODY_HIDDEN,
): Promise<void> {
  // Adds to `query` and returns nothing: a builder returned from an async function is awaited, which runs it.
  if (!viewerId) {
    query.whereIn('statuses.visibility', ['public', 'unlisted'])
    return
  }
  if (viewerId !== authorId) {
    const visibilities = ['public', 'unlisted']
    if (await follows(db, viewerId, authorId)) visibilities.push('private')
    query.where((q) =>
      q
        .whereIn('statuses.visibility', visibilities)
        .orWhereIn('statuses.id', db('mentions').where('mentions.account_id', viewerId).select('status_id')),
    )
  }
  const hiddenOriginal = hiddenAccountSql('originals.account_id', hidden)
  if (hiddenOriginal)
    query.where((q) =>
      q.whereNull('statuses.reblog_of_id').orWhereNotExists(
        db('statuses as originals')
          .whereRaw('originals.id = statuses.reblog_of_id')
          .whereRaw(...hiddenOriginal),
      ),
    )
}

/** A status the viewer may read, else 404 "Record not found" (or `notFound` for a different text). */
export async function findVisibleStatus(
  db: Knex,
  id: string | undefined,
  viewerId?: string,
  notFound: () => Error = () => new NotFound(),
): Promise<StatusRow> {
  const row: StatusRow | undefined = id
    ? await visibleTo(db, db('statuses').where('statuses.id', id), viewerId).first('statuses.*')
    : undefined
  if (!row) throw notFound()
  return row
}

/** Mastodon's status validations: some text unless there is media, and at most 500 characters with the warning. */
export function checkText(text: string, spoilerText: string, hasMedia: boolean) {
  if (!text.trim() && !hasMedia) throw new Invalid("Validation failed: Text can't be blank")
  if ([...text].length + [...spoilerText].length > MAX_CHARS)
    throw new Invalid(`Validation failed: Text character limit of ${MAX_CHARS} exceeded`)
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
  /** The status to quote (docs/statuses.md, "Quotes"). */
  quotedStatusId?: string
  /** public, followers or nobody (the author's default, given by the caller). */
  quotePolicy?: string
}

/**
 * The author's uploads named by `ids`, in that order, that may go on a status: not attached yet (nor held by a
 * scheduled status), or already on `statusId` (an edit), and processed. Too many, one that is not the author's or
 * is on another status, or one still processed → 422.
 */
export async function attachableMedia(
  trx: Knex,
  accountId: string,
  ids: string[],
  statusId?: string,
): Promise<MediaAttachmentRow[]> {
  if (ids.length > MAX_MEDIA)
    throw new Invalid(`Validation failed: Cannot attach more than ${MAX_MEDIA} files`)
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
  if (missing.length) throw new Invalid(`Validation failed: Media ${missing.join(', ')} not found`)
  // A video, audio file or GIF the worker has not finished (or could not process): Mastodon's `not_ready`
  // (docs/media.md, "Video, audio and GIFs").
  if (rows.some((m) => m.processing && m.processing !== 'complete'))
    throw new Invalid('Cannot attach files that have not finished processing. Try again in a moment!')
  return [...new Set(ids)].map((id) => rows.find((m) => m.id === id)!)
}

/**
 * The accounts `@named` in a status's text (not suspended ones): local `@username`s, and remote `@username@domain`s
 * already known (those not yet resolved were resolved before, federation/mentions.ts; unknown ones stay text).
 */
export async function mentionedAccounts(trx: Knex, text: string): Promise<AccountRow[]> {
  // Each mention as (username, domain), '' for a local one: the key of accounts_username_domain_lower, so each is
  // one index lookup however many accounts are known (a condition per kind of mention, ORed, read them all). The
  // lookup is a LATERAL subquery with a LIMIT, which Postgres runs per mention as written: as a join of the
  // mentions with accounts, its plan followed the statistics, and with statistics from before the accounts were
  // inserted it read every account once per mention (docs/performance.md, "Queries").
  const mentions = new Map(
    [...text.matchAll(ANY_MENTION)].map((m) => {
      const key: [string, string] = [m[1]!.toLowerCase(), (m[2] ?? '').toLowerCase()]
      return [key.join('@'), key]
    }),
  )
  if (!mentions.size) return []
  const keys = [...mentions.values()]
  const { rows } = await trx.raw<{ rows: AccountRow[] }>(
    `SELECT accounts.* FROM unnest(?::text[], ?::text[]) AS mention(username, domain)
       CROSS JOIN LATERAL (
         SELECT * FROM accounts
          WHERE lower(accounts.username) = mention.username AND coalesce(lower(accounts.domain), '') = mention.domain
          LIMIT 1) AS accounts
      WHERE accounts.suspended_at IS NULL`,
    [keys.map(([username]) => username), keys.map(([, domain]) => domain)],
  )
  return rows
}

/**
 * Records an edited status's mentions and hashtags, replacing those of its previous text (a new status writes its
 * mentions with itself, `createStatus`). Returns the status's tags.
 */
export async function storeMentionsAndTags(
  trx: Knex,
  statusId: string,
  text: string,
  mentioned: AccountRow[],
) {
  await trx('mentions').where({ status_id: statusId }).delete()
  if (mentioned.length)
    await trx('mentions').insert(mentioned.map((a) => ({ status_id: statusId, account_id: a.id })))
  return storeTags(trx, statusId, text)
}

/**
 * Keeps statuses_count in step (Mastodon does not count direct messages); an increase also sets last_status_at.
 * Returns the account row as updated (undefined when nothing changed). A local post counts itself in its own
 * statement (`createStatus`).
 */
export async function countStatus(
  trx: Knex,
  accountId: string,
  visibility: Visibility,
  delta: 1 | -1,
): Promise<AccountRow | undefined> {
  if (visibility === 'direct') return undefined
  const q = trx('accounts').where({ id: accountId })
  if (delta > 0) {
    const [row]: AccountRow[] = await q
      .update({ statuses_count: trx.raw('statuses_count + 1'), last_status_at: trx.fn.now() })
      .returning('*')
    return row
  }
  await q.where('statuses_count', '>', 0).decrement('statuses_count', 1)
  return undefined
}

/** The status a new one replies to: one the author can see and not a boost, else 404 (Mastodon's wording). */
export async function replyTarget(
  trx: Knex,
  author: AccountRow,
  inReplyToId: string | undefined,
): Promise<StatusRow | undefined> {
  const gone = () => new NotFound('The post you are trying to reply to does not appear to exist.')
  if (!inReplyToId) return undefined
  const replyTo = await findVisibleStatus(trx, inReplyToId, author.id, gone)
  if (replyTo.reblog_of_id) throw gone()
  return replyTo
}

/** A status just created, with what its request knows of it (`renderStatus` takes it as `created`). */
export interface CreatedStatus {
  status: StatusRow
  facts: Omit<NewStatusFacts, 'application'>
}

/**
 * Mastodon's PostStatusService for local accounts: validates, stores the status with its mentions, tags and
 * media, and records `status.created` (the accounts worker notifies and fans out). A status that opens a thread
 * creates its conversation in the same statement.
 */
export async function createStatus(trx: Knex, author: AccountRow, s: NewStatus): Promise<CreatedStatus> {
  checkText(s.text, s.spoilerText, s.mediaIds.length > 0)

  const replyTo = await replyTarget(trx, author, s.inReplyToId)
  const quoted =
    s.quotedStatusId !== undefined ? await quotableStatus(trx, author, s.quotedStatusId) : undefined
  const visibility = quoted ? quoteVisibility(s.visibility, quoted) : s.visibility

  const media = await attachableMedia(trx, author.id, s.mediaIds)
  const mentioned = await mentionedAccounts(trx, s.text)
  // One statement writes the status, the conversation it opens (a reply joins its parent's), its mentions, its
  // author's counter (`countStatus`'s increment) and its `status.created` event, each a data-modifying CTE: one
  // round trip where it took four (docs/performance.md, "Write path").
  const insert = trx.queryBuilder()
  if (!replyTo) insert.with('c', trx.raw('insert into conversations default values returning id'))
  insert.with(
    's',
    trx('statuses')
      .insert({
        account_id: author.id,
        conversation_id: replyTo ? replyTo.conversation_id : trx.raw('(select id from c)'),
        text: s.text,
        spoiler_text: s.spoilerText,
        // A content warning always hides the media too, as in Mastodon.
        sensitive: s.sensitive || !!s.spoilerText,
        visibility,
        ...localQuotePolicy(visibility, s.quotePolicy, 'public'),
        language: s.language,
        in_reply_to_id: replyTo?.id ?? null,
        in_reply_to_account_id: replyTo?.account_id ?? null,
        application_id: s.applicationId ?? null,
        ordered_media_attachment_ids: media.length > 1 ? media.map((m) => m.id) : null,
      })
      .returning('*'),
  )
  if (mentioned.length)
    insert.with(
      'm',
      trx.raw('insert into mentions (status_id, account_id) select s.id, unnest(?::bigint[]) from s', [
        bigintArray(mentioned.map((a) => a.id)),
      ]),
    )
  // Mastodon does not count direct messages.
  const counts = visibility !== 'direct'
  if (counts)
    insert.with(
      'a',
      trx('accounts')
        .where({ id: author.id })
        .update({ statuses_count: trx.raw('statuses_count + 1'), last_status_at: trx.fn.now() })
        .returning(['statuses_count', 'last_status_at']),
    )
  insert.with(
    'o',
    outbox.insertFor(
      trx,
      { cte: 's' },
      { statusId: outbox.rowId('s.id') },
      {
        event: 'status.created',
        accountId: author.id,
        ...(quoted && quoted.account_id !== author.id ? { quotedAccountId: quoted.account_id } : {}),
      },
    ),
  )
  insert.from('s').select('s.*')
  if (counts)
    insert
      .joinRaw('left join a on true')
      .select('a.statuses_count as author_statuses_count', 'a.last_status_at as author_last_status_at')
  const [inserted]: (StatusRow & { author_statuses_count?: number; author_last_status_at?: Date })[] =
    await insert
  const { author_statuses_count, author_last_status_at, ...row } = inserted!
  const counted = counts
    ? { ...author, statuses_count: author_statuses_count!, last_status_at: author_last_status_at! }
    : undefined
  await attachMedia(trx, media, { status_id: row.id })
  const tags = await storeTags(trx, row.id, s.text, true)
  if (s.poll) await createPoll(trx, row.id, author.id, s.poll)
  if (quoted) await attachQuote(trx, row, quoted)
  return {
    status: row,
    facts: {
      author: counted ?? author,
      media: media.map((m) => ({ ...m, status_id: row.id })),
      mentioned,
      tags: tags.map((t) => t.name),
      hasPoll: !!s.poll,
      isReply: !!replyTo,
      hasQuote: !!quoted,
    },
  }
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
    // One after the other: a transaction is one connection, which runs one statement at a time anyway.
    const mentioned: string[] = await trx('mentions').where({ status_id: status.id }).pluck('account_id')
    const tags = await tagNamesOf(trx, status.id)
    const reached = status.uri ? [] : await interactedRemoteAccounts(trx, status)
    await outbox.add(trx, ...removedReblogs, {
      event: 'status.deleted',
      statusId: status.id,
      accountId: status.account_id,
      visibility: status.visibility,
      inReplyToId: status.in_reply_to_id,
      inReplyToAccountId: status.in_reply_to_account_id,
      mentionedAccountIds: mentioned,
      tags,
      ...(reached.length ? { reachedAccountIds: reached } : {}),
    })
  }
  await trx('statuses').where({ id: status.id }).delete()
}

/**
 * The remote accounts that boosted, favourited or answered a public or unlisted post (Mastodon's StatusReachFinder
 * counts them in the reach of its Update and Delete; docs/federation.md, "Posts across servers").
 */
export async function interactedRemoteAccounts(
  db: Knex,
  status: Pick<StatusRow, 'id' | 'visibility'>,
): Promise<string[]> {
  if (status.visibility !== 'public' && status.visibility !== 'unlisted') return []
  return db('accounts')
    .whereNotNull('domain')
    .whereIn(
      'id',
      db('favourites')
        .where({ status_id: status.id })
        .select('account_id')
        .union(
          db('statuses').where({ reblog_of_id: status.id }).select('account_id'),
          db('statuses').where({ in_reply_to_id: status.id }).select('account_id'),
        ),
    )
    .pluck('id')
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
  if (original.visibility === 'private' || original.visibility === 'direct') throw new Forbidden()
  const [row]: StatusRow[] = await trx('statuses')
    .insert({ account_id: account.id, reblog_of_id: original.id, visibility, sensitive: false })
    .returning('*')
  await countStatus(trx, account.id, visibility, 1)
  await outbox.add(trx, reblogEvent('reblog.created', row!, original.account_id))
  return row!
}

/** Ties uploaded media to the status, or the scheduled status, they were attached to. */
export async function attachMedia(
  trx: Knex,
  media: { id: string }[],
  owner: { status_id: string } | { scheduled_status_id: string },
) {
  if (media.length)
    await trx('media_attachments')
      .whereIn(
        'id',
        media.map((m) => m.id),
      )
      .update(owner)
}
