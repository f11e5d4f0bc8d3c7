import type { Knex } from '@roost/db'
import type { PollRow } from '../db/rows'

/**
 * Mastodon's Poll entity (app/serializers/rest/poll_serializer.rb). Option counts stay hidden (null) while a
 * `hide_totals` poll runs; `voted` and `own_votes` only with a viewer (`ownVotes` undefined means anonymous). The
 * author counts as having voted.
 */
export function renderPoll(poll: PollRow, viewerId?: string, ownVotes: number[] = []) {
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
    emojis: [],
    ...(viewerId ? { voted: viewerId === poll.account_id || ownVotes.length > 0, own_votes: ownVotes } : {}),
  }
}

/** The polls of a page of statuses, rendered for `viewerId`, by status id: two queries for the whole page. */
export async function pollsOf(db: Knex, statusIds: string[], viewerId?: string) {
  const polls: PollRow[] = statusIds.length ? await db('polls').whereIn('status_id', statusIds) : []
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
      ),
    ]),
  )
}
