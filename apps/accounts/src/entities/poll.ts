import type { Knex } from '@roost/db'
import type { CustomEmojiRow, PollRow } from '../db/rows'
import { emojisIn, emojisOfMany } from '../queries/custom_emojis'
import type { Urls } from './account'
import { renderCustomEmoji } from './custom_emoji'

/**
 * Mastodon's Poll entity (app/serializers/rest/poll_serializer.rb). Option counts stay hidden (null) while a
 * `hide_totals` poll runs; `voted` and `own_votes` only with a viewer (`ownVotes` undefined means anonymous). The
 * author counts as having voted.
 */
export function renderPoll(
  poll: PollRow,
  viewerId?: string,
  ownVotes: number[] = [],
  emojis: ReturnType<typeof renderCustomEmoji>[] = [],
) {
  const expired = !!poll.expires_at && new Date(poll.expires_at) <= new Date()
  const showTotals = expired || !poll.hide_totals
  return {
    id: poll.id,
    expires_at: poll.expires_at && new Date(poll.expires_at).toISOString(),
    expired,
    multiple: poll.multiple,
    votes_count: Number(poll.votes_count),
    voters_count: Number(poll.voters_count),
    options: poll.options.map((title, i) => ({
      title,
      votes_count: showTotals ? Number(poll.cached_tallies[i] ?? 0) : null,
    })),
    // The custom emojis its options name (Mastodon's Poll#emojis), from its author's server.
    emojis,
    ...(viewerId ? { voted: viewerId === poll.account_id || ownVotes.length > 0, own_votes: ownVotes } : {}),
  }
}

/** The custom emojis of one poll's options (docs/emoji.md), from its author's server. */
export async function pollEmojis(db: Knex, poll: PollRow, urls: Urls) {
  const author: { domain: string | null } | undefined = await db('accounts')
    .where({ id: poll.account_id })
    .first('domain')
  return (await emojisIn(db, author?.domain, poll.options)).map((e) => renderCustomEmoji(e, urls))
}

/**
 * The polls of a page of statuses, rendered for `viewerId`, by status id: three queries for the whole page.
 * `domains`: each status's author's server (null: ours), whose emojis its options name.
 */
export async function pollsOf(
  db: Knex,
  statusIds: string[],
  viewerId: string | undefined,
  urls: Urls,
  domains: Map<string, string | null>,
) {
  const polls: PollRow[] = statusIds.length ? await db('polls').whereIn('status_id', statusIds) : []
  const emojis: Map<string, CustomEmojiRow[]> = polls.length
    ? await emojisOfMany(
        db,
        polls.map((p) => ({ key: p.id, domain: domains.get(p.status_id), texts: p.options })),
      )
    : new Map()
  const votes: { poll_id: string; choice: number }[] =
    viewerId && polls.length
      ? await db('poll_votes')
          .where({ account_id: viewerId })
          .whereIn(
            'poll_id',
            polls.map((p) => p.id),
          )
          .orderBy('id')
      : []
  return new Map(
    polls.map((p) => [
      p.status_id,
      renderPoll(
        p,
        viewerId,
        votes.filter((v) => v.poll_id === p.id).map((v) => v.choice),
        (emojis.get(p.id) ?? []).map((e) => renderCustomEmoji(e, urls)),
      ),
    ]),
  )
}
