import type { Knex } from '@roost/db'
import type { Urls } from '../../entities/account'
import type { AccountRow, QuoteRow, StatusRow } from '../../db/rows'
import { accountsById } from '../../queries/accounts'
import { AS, PUBLIC_COLLECTION, QUOTE_CONTEXT } from './contexts'
import { actorUri, actorUriOf, followersUriOf, objectUriOf, statusUrl } from '../uris'
import { linkHtml } from '../../text/html'

/**
 * Quotes in ActivityPub (docs/federation.md, "Quotes"), as Mastodon 4.5's serializers: the Note's quote fields
 * (NoteSerializer), the stamp (QuoteAuthorizationSerializer), QuoteRequest, its Accept and Reject, and the Delete of
 * a stamp (DeleteQuoteAuthorizationSerializer).
 */

/** Where a local author's stamp for a quote is served (Mastodon's `approval_uri_for`). */
export const stampUri = (urls: Urls, quotedUsername: string, quoteId: string) =>
  `${actorUri(urls, quotedUsername)}/quote_authorizations/${quoteId}`

/** The stamp of an accepted quote of a local post: who quotes (`interactingObject`) what (`interactionTarget`). */
export const renderStamp = (id: string, quotedActor: string, quotingUri: string, quotedUri: string) => ({
  id,
  type: 'QuoteAuthorization',
  attributedTo: quotedActor,
  interactingObject: quotingUri,
  interactionTarget: quotedUri,
})

/** Keys of `quoteFieldsOf`'s answer that are not Note fields: the RE: paragraph and the actor to address. */
export const QUOTE_FALLBACK = Symbol('quote fallback')
export const QUOTED_ACTOR = Symbol('quoted actor')

/**
 * The quote fields of local Notes, by status id: `quote` (and, as Mastodon, `_misskey_quote` and `quoteUri` for
 * the older readers), `quoteAuthorization` once accepted, and `interactionPolicy.canQuote` (only automatic approval
 * is sent, and the author alone when nobody else may quote, as Mastodon does).
 */
export async function quoteFieldsOf(
  db: Knex,
  urls: Urls,
  statuses: StatusRow[],
  authors: Map<string, AccountRow>,
): Promise<Map<string, Record<string | symbol, unknown>>> {
  const fields = new Map<string, Record<string | symbol, unknown>>()
  if (!statuses.length) return fields
  const quotes: QuoteRow[] = await db('quotes').whereIn(
    'status_id',
    statuses.map((s) => s.id),
  )
  const quotedIds = quotes.flatMap((q) => (q.quoted_status_id ? [q.quoted_status_id] : []))
  const quoted: StatusRow[] = quotedIds.length ? await db('statuses').whereIn('id', quotedIds) : []
  const quotedAuthors = await accountsById(
    db,
    quoted.map((s) => s.account_id),
  )
  for (const s of statuses) {
    const author = authors.get(s.account_id)
    if (!author) continue
    const automatic = s.quote_automatic ?? []
    const approved = [
      ...(automatic.includes('public') ? [PUBLIC_COLLECTION] : []),
      ...(automatic.includes('followers') ? [followersUriOf(urls, author)] : []),
    ]
    const f: Record<string | symbol, unknown> = {
      interactionPolicy: {
        canQuote: { automaticApproval: approved.length ? approved : [actorUriOf(urls, author)] },
      },
    }
    const q = quotes.find((x) => x.status_id === s.id)
    if (q) {
      const target = quoted.find((x) => x.id === q.quoted_status_id)
      const targetAuthor = target && quotedAuthors.get(target.account_id)
      const uri = target && targetAuthor ? objectUriOf(urls, target, targetAuthor) : q.quoted_uri
      if (uri) Object.assign(f, { quote: uri, _misskey_quote: uri, quoteUri: uri })
      else f.quote = { type: 'Tombstone' }
      // For readers without FEP-044f, Mastodon 4.5 puts "RE: <link to the quoted post>" before the text, in a
      // paragraph its own clients hide (`quote-inline`), and addresses the quoted author (its silent mention).
      const page =
        target && targetAuthor
          ? targetAuthor.domain
            ? (target.url ?? target.uri)
            : statusUrl(urls, targetAuthor.username, target.id)
          : q.quoted_uri
      if (page)
        f[QUOTE_FALLBACK] = {
          url: page,
          html: `<p class="quote-inline">RE: ${linkHtml(page, 'nofollow noopener')}</p>`,
        }
      // Not in a direct post: its audience is whom it mentions (Mastodon refuses such a quote unless the quoted
      // author is mentioned).
      if (targetAuthor && targetAuthor.id !== s.account_id && s.visibility !== 'direct')
        f[QUOTED_ACTOR] = actorUriOf(urls, targetAuthor)
      if (q.state === 'accepted') {
        const approval =
          targetAuthor && !targetAuthor.domain ? stampUri(urls, targetAuthor.username, q.id) : q.approval_uri
        if (approval) f.quoteAuthorization = approval
      }
    }
    fields.set(s.id, f)
  }
  return fields
}

/** Mastodon's QuoteRequestSerializer, with the quoting Note inlined as `instrument` (as 4.5 does for local posts). */
export const renderQuoteRequest = (
  quote: QuoteRow,
  actor: string,
  quotedUri: string,
  instrument: Record<string, unknown>,
) => ({
  '@context': QUOTE_CONTEXT,
  id: quote.activity_uri,
  type: 'QuoteRequest',
  actor,
  object: quotedUri,
  instrument,
})

/** Mastodon's AcceptQuoteRequestSerializer (or RejectQuoteRequestSerializer, without `result`). */
export function renderQuoteAnswer(
  type: 'Accept' | 'Reject',
  quotedActor: string,
  request: { id: string; actor: string; object: string; instrument: string },
  quoteId: string,
  result?: string,
) {
  return {
    '@context': QUOTE_CONTEXT,
    id: `${quotedActor}#${type === 'Accept' ? 'accepts' : 'rejects'}/quote_requests/${quoteId}`,
    type,
    actor: quotedActor,
    object: { type: 'QuoteRequest', ...request },
    ...(result ? { result } : {}),
  }
}

/** Mastodon's DeleteQuoteAuthorizationSerializer: the stamp taken back, addressed to the public. */
export const renderStampDelete = (stamp: ReturnType<typeof renderStamp>) => ({
  '@context': QUOTE_CONTEXT,
  id: `${stamp.id}#delete`,
  type: 'Delete',
  actor: stamp.attributedTo,
  to: [PUBLIC_COLLECTION],
  object: stamp,
})

/** Mastodon's MoveSerializer: the account moves itself to `target`. */
export const renderMove = (actor: string, target: string, id: string) => ({
  '@context': AS,
  id,
  type: 'Move',
  actor,
  object: actor,
  target,
})
