import type { Knex } from '@roost/db'
import { Forbidden, Invalid, NotFound } from '@roost/errors'
import type { AccountRow, QuoteRow, StatusRow } from '../db/rows'
import * as outbox from '../outbox/outbox'
import { blocks } from './relationships'
import type { QuotePermission } from '../queries/quotes'
import { followsBothWays, quotePermissionFrom } from '../queries/quotes'
import { findVisibleStatus } from './statuses'
import type { Visibility } from './statuses'

/**
 * Quote posts (docs/statuses.md, "Quotes"), as Mastodon 4.5: a status quotes at most one other; the quote is
 * `pending` until the quoted author's server accepts it (at once for a local post the policy lets the quoter
 * quote), `accepted`, `rejected`, or `revoked` when the quoted author takes an acceptance back. A status's quote
 * policy is two lists of Mastodon's keys: who is accepted at once (`automatic`) and who after review (`manual`).
 */

export const QUOTE_POLICIES = ['public', 'followers', 'nobody'] as const
export type QuotePolicy = (typeof QUOTE_POLICIES)[number]

/** Mastodon's `quote_approval_policy` parameter as the policy's automatic keys (manual is never set locally). */
export function automaticKeysOf(policy: string): string[] {
  switch (policy) {
    case 'public':
      return ['public']
    case 'followers':
      return ['followers']
    case 'nobody':
      return []
    default:
      // Mastodon raises ActiveRecord::RecordInvalid, which its API answers with 422 "Record invalid".
      throw new Invalid('Record invalid')
  }
}

/**
 * The policy a local status is stored with: the one given, else the author's default; none for a post that is not
 * public or unlisted (Mastodon's `downgrade_quote_policy`: only its author may quote it).
 */
export function localQuotePolicy(visibility: Visibility, given: string | undefined, fallback: string) {
  const automatic = automaticKeysOf(given ?? fallback)
  return {
    quote_automatic: visibility === 'public' || visibility === 'unlisted' ? automatic : [],
    quote_manual: [],
  }
}

/** Mastodon's Status#quote_policy_for_account: how `viewerId` may quote `status`. */
export async function quotePermission(
  db: Knex,
  status: StatusRow,
  viewerId: string | undefined,
): Promise<QuotePermission> {
  const { following, followed } = await followsBothWays(db, viewerId, [status.account_id])
  return quotePermissionFrom(status, viewerId, {
    following: following.has(status.account_id),
    followed: followed.has(status.account_id),
  })
}

const notQuotable = () => new NotFound('The post you are trying to quote does not appear to exist.')

/**
 * The status `author` may quote (Mastodon's `set_quoted_status`: `Status.find(id).proper`, then StatusPolicy#quote?):
 * one the author can see, the original of a boost, whose policy does not deny the author, and whose author the
 * quoter does not block; anything else is Mastodon's 404 "The post you are trying to quote does not appear to
 * exist." (it does not tell a missing post from one it may not quote).
 */
export async function quotableStatus(
  trx: Knex,
  author: AccountRow,
  id: string | undefined,
): Promise<StatusRow> {
  let status = await findVisibleStatus(trx, id, author.id, notQuotable)
  if (status.reblog_of_id) status = await findVisibleStatus(trx, status.reblog_of_id, author.id, notQuotable)
  if ((await quotePermission(trx, status, author.id)) === 'denied') throw notQuotable()
  if (await blocks(trx, author.id, status.account_id)) throw notQuotable()
  return status
}

/**
 * The visibility a quote takes (Mastodon's PostStatusService): a public or unlisted quote of a followers-only post
 * (its author's own) becomes followers-only.
 */
export function quoteVisibility(visibility: Visibility, quoted: StatusRow): Visibility {
  return quoted.visibility === 'private' && (visibility === 'public' || visibility === 'unlisted')
    ? 'private'
    : visibility
}

/**
 * Records that local `status` quotes `quoted` (Mastodon's `attach_quote!`): accepted at once when the quoted post is
 * local (its policy allowed the quoter), pending otherwise: `quote.requested` sends a QuoteRequest to the quoted
 * author's server (docs/federation.md, "Quotes"). An accepted quote records `quote.accepted` (the quoted author's
 * `quote` notification).
 */
export async function attachQuote(trx: Knex, status: StatusRow, quoted: StatusRow): Promise<QuoteRow> {
  const local = !quoted.uri
  const [row]: QuoteRow[] = await trx('quotes')
    .insert({
      status_id: status.id,
      account_id: status.account_id,
      quoted_status_id: quoted.id,
      quoted_account_id: quoted.account_id,
      state: local ? 'accepted' : 'pending',
    })
    .returning('*')
  await outbox.add(trx, quoteEvent(local ? 'quote.accepted' : 'quote.requested', row!))
  return row!
}

export const quoteEvent = (
  event: 'quote.requested' | 'quote.accepted' | 'quote.revoked',
  q: Pick<QuoteRow, 'id' | 'status_id' | 'account_id' | 'quoted_account_id' | 'quoted_status_id'>,
) => ({
  event,
  quoteId: q.id,
  statusId: q.status_id,
  accountId: q.account_id,
  quotedAccountId: q.quoted_account_id,
  quotedStatusId: q.quoted_status_id,
})

/**
 * Mastodon's RevokeQuoteService (`POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke`): the quoted post's
 * author takes back a quote of it; an accepted quote becomes revoked, a pending one rejected. Someone else's post
 * is 403 (Mastodon's QuotePolicy#revoke?), a status that does not quote it 404.
 */
export async function revokeQuote(
  trx: Knex,
  account: AccountRow,
  quoted: StatusRow,
  quotingStatusId: string | undefined,
): Promise<QuoteRow> {
  const quote: QuoteRow | undefined = quotingStatusId
    ? await trx('quotes')
        .where({ quoted_status_id: quoted.id, status_id: quotingStatusId })
        .forUpdate()
        .first()
    : undefined
  if (!quote) throw new NotFound()
  if (quote.quoted_account_id !== account.id) throw new Forbidden()
  return rejectQuote(trx, quote)
}

/** Mastodon's Quote#reject!: accepted → revoked, pending → rejected; revoked stays. */
export async function rejectQuote(trx: Knex, quote: QuoteRow): Promise<QuoteRow> {
  if (quote.state === 'revoked' || quote.state === 'rejected') return quote
  const state = quote.state === 'accepted' ? 'revoked' : 'rejected'
  const [row]: QuoteRow[] = await trx('quotes')
    .where({ id: quote.id })
    .update({ state, updated_at: trx.fn.now() })
    .returning('*')
  if (quote.state === 'accepted') await outbox.add(trx, quoteEvent('quote.revoked', row!))
  return row!
}
