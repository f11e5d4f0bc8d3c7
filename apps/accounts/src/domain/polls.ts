import type { Knex } from '@roost/db'
import { Invalid } from '@roost/errors'
import * as outbox from '../outbox/outbox'
import type { PollRow } from '../db/rows'

/** Mastodon's poll limits (PollOptionsValidator, PollExpirationValidator), also shown in /api/v2/instance. */
export const POLL_LIMITS = {
  maxOptions: 4,
  maxOptionChars: 50,
  minExpiration: 300,
  /** One month as Rails counts it (30.436875 days). */
  maxExpiration: 2_629_746,
}

export interface NewPoll {
  options: string[]
  /** Seconds; undefined when the client left it out (which is invalid, as in Mastodon). */
  expiresIn?: number
  multiple: boolean
  hideTotals: boolean
  /** The shortest poll allowed, in seconds (POLL_MIN_EXPIRATION_SECONDS; Mastodon's 300 unless a test lowers it). */
  minExpiration?: number
}

const graphemes = new Intl.Segmenter()
const length = (s: string) => [...graphemes.segment(s)].length

/**
 * Validates a poll as Mastodon does (options stripped, blank ones dropped) and returns its options; every problem
 * is listed in one 422, Rails style.
 */
export function checkPoll(poll: NewPoll): string[] {
  const options = poll.options.map((o) => o.trim()).filter((o) => o)
  const errors: string[] = []
  if (options.length < 2) errors.push('Poll options must have more than one item')
  if (options.length > POLL_LIMITS.maxOptions)
    errors.push(`Poll options can't contain more than ${POLL_LIMITS.maxOptions} items`)
  if (options.some((o) => length(o) > POLL_LIMITS.maxOptionChars))
    errors.push(`Poll options cannot be longer than ${POLL_LIMITS.maxOptionChars} characters each`)
  if (new Set(options).size !== options.length) errors.push('Poll options contain duplicate items')
  if (poll.expiresIn === undefined) errors.push("Poll expires at can't be blank")
  else if (poll.expiresIn > POLL_LIMITS.maxExpiration)
    errors.push('Poll expires at is too far into the future')
  else if (poll.expiresIn < (poll.minExpiration ?? POLL_LIMITS.minExpiration))
    errors.push('Poll expires at is too soon')
  if (errors.length) throw new Invalid(`Validation failed: ${errors.join(', ')}`)
  return options
}

const expiry = (trx: Knex, seconds: number) => trx.raw('now() + make_interval(secs => ?)', [seconds])

/** Records the timer of a poll's end (`poll` notifications, timers/polls.ts). */
const timeEnd = (trx: Knex, poll: { id: string; expires_at: Date }) =>
  outbox.add(trx, {
    event: 'poll.expired',
    pollId: poll.id,
    runAt: new Date(poll.expires_at).toISOString(),
  })

/** Stores a new poll on a status, with the timer of its end. */
export async function createPoll(trx: Knex, statusId: string, accountId: string, poll: NewPoll) {
  const options = checkPoll(poll)
  const [row]: PollRow[] = await trx('polls')
    .insert({
      account_id: accountId,
      status_id: statusId,
      options,
      multiple: poll.multiple,
      hide_totals: poll.hideTotals,
      expires_at: expiry(trx, poll.expiresIn!),
      cached_tallies: options.map(() => 0),
    })
    .returning(['id', 'expires_at'])
  await timeEnd(trx, row as { id: string; expires_at: Date })
}

/** A poll of another server, as its Question says (docs/federation.md, "Polls"). */
export interface RemotePoll {
  options: string[]
  multiple: boolean
  /** Votes per option, as its server counts them. */
  tallies: number[]
  votersCount: number
  expiresAt: Date | null
}

/**
 * Stores the poll of a remote status, or refreshes it from a later Update: options, counts and end are its
 * server's. Changed options (or `multiple`) discard the votes cast here, as a local edit does; a new end restarts
 * the timer, so that local voters hear of the end. Returns whether the poll changed in more than its counts (an
 * edit).
 */
export async function storeRemotePoll(
  trx: Knex,
  statusId: string,
  accountId: string,
  poll: RemotePoll | undefined,
): Promise<boolean> {
  const previous: PollRow | undefined = await trx('polls').where({ status_id: statusId }).forUpdate().first()
  if (!poll) {
    if (previous) await trx('polls').where({ id: previous.id }).delete()
    return !!previous
  }
  const fields = {
    options: poll.options,
    multiple: poll.multiple,
    cached_tallies: poll.tallies,
    votes_count: poll.tallies.reduce((a, b) => a + b, 0),
    voters_count: poll.votersCount,
    expires_at: poll.expiresAt,
    updated_at: trx.fn.now(),
  }
  if (!previous) {
    const [row] = await trx('polls')
      .insert({ account_id: accountId, status_id: statusId, hide_totals: false, ...fields })
      .returning('id')
    if (poll.expiresAt) await timeEnd(trx, { id: row.id, expires_at: poll.expiresAt })
    return true
  }
  const reset = poll.options.join('\n') !== previous.options.join('\n') || poll.multiple !== previous.multiple
  if (reset) await trx('poll_votes').where({ poll_id: previous.id }).delete()
  const newEnd = (previous.expires_at?.getTime() ?? null) !== (poll.expiresAt?.getTime() ?? null)
  await trx('polls')
    .where({ id: previous.id })
    .update({ ...fields, ...(newEnd ? { expiry_notified_at: null } : {}) })
  if (newEnd && poll.expiresAt) await timeEnd(trx, { id: previous.id, expires_at: poll.expiresAt })
  return reset || newEnd
}

/**
 * An edit's poll, as Mastodon's UpdateStatusService handles it: a poll replaces the old one's settings and always
 * restarts its clock (`expires_in` from now); changing the options or `multiple` discards every vote; no poll
 * removes it. Returns whether anything changed.
 */
export async function replacePoll(trx: Knex, statusId: string, accountId: string, poll: NewPoll | undefined) {
  const previous: PollRow | undefined = await trx('polls').where({ status_id: statusId }).forUpdate().first()
  if (!poll) {
    if (previous) await trx('polls').where({ id: previous.id }).delete()
    return !!previous
  }
  if (!previous) {
    await createPoll(trx, statusId, accountId, poll)
    return true
  }
  const options = checkPoll(poll)
  const reset = options.join('\n') !== previous.options.join('\n') || poll.multiple !== previous.multiple
  if (reset) await trx('poll_votes').where({ poll_id: previous.id }).delete()
  const [row]: PollRow[] = await trx('polls')
    .where({ id: previous.id })
    .update({
      options,
      multiple: poll.multiple,
      hide_totals: poll.hideTotals,
      expires_at: expiry(trx, poll.expiresIn!),
      // A restarted poll ends again: voters not notified the first time will be.
      expiry_notified_at: null,
      updated_at: trx.fn.now(),
      ...(reset ? { cached_tallies: options.map(() => 0), votes_count: 0, voters_count: 0 } : {}),
    })
    .returning(['id', 'expires_at'])
  await timeEnd(trx, row as { id: string; expires_at: Date })
  return true
}

/**
 * Mastodon's VoteService for a local poll, inside the caller's transaction (the poll row is locked, so votes of
 * one account cannot race each other): one vote per chosen option; Mastodon's 422s for an ended poll, an option
 * that does not exist, one's own poll, and a second vote (or the same option twice).
 */
export async function vote(trx: Knex, pollId: string, accountId: string, choices: number[]) {
  const poll: PollRow = await trx('polls').where({ id: pollId }).forUpdate().first()
  const previous: number[] = await trx('poll_votes')
    .where({ poll_id: poll.id, account_id: accountId })
    .pluck('choice')
  const taken = [...previous]
  for (const choice of choices) {
    const errors: string[] = []
    if (poll.expires_at && new Date(poll.expires_at) <= new Date()) errors.push('The poll has already ended')
    if (!Number.isInteger(choice) || choice < 0 || choice >= poll.options.length)
      errors.push('The chosen vote option does not exist')
    if (poll.account_id === accountId) errors.push('You cannot vote in your own polls')
    if (poll.multiple ? taken.includes(choice) : taken.length > 0)
      errors.push('You have already voted on this poll')
    if (errors.length) throw new Invalid(`Validation failed: ${errors.join(', ')}`)
    taken.push(choice)
  }
  const votes: { id: string }[] = await trx('poll_votes')
    .insert(choices.map((choice) => ({ poll_id: poll.id, account_id: accountId, choice })))
    .returning('id')
  const tallies = poll.options.map(
    (_, i) => Number(poll.cached_tallies[i] ?? 0) + choices.filter((c) => c === i).length,
  )
  await trx('polls')
    .where({ id: poll.id })
    .update({
      cached_tallies: tallies,
      votes_count: tallies.reduce((a, b) => a + b, 0),
      voters_count: Number(poll.voters_count) + (previous.length ? 0 : 1),
      updated_at: trx.fn.now(),
    })
  // A vote in a remote poll goes to its author's server (activities/federation.ts).
  await outbox.add(trx, { event: 'poll.voted', pollId: poll.id, accountId, voteIds: votes.map((v) => v.id) })
}
