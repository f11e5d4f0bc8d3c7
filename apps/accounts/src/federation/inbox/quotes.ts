import type { AccountRow, QuoteRow, StatusRow } from '../../db/rows'
import { quoteEvent, quotePermission, rejectQuote } from '../../domain/quotes'
import * as outbox from '../../outbox/outbox'
import type { Federation } from '../transport/client'
import type { Deliver } from '../transport/delivery-queue'
import { renderQuoteAnswer, stampUri } from '../render/quote'
import { PUBLIC_COLLECTION } from '../render/contexts'
import { actorUriOf, objectUriOf } from '../uris'
import { createRemoteStatus, fetchStatus, idOf, sameHost, statusByUri } from './statuses'

/**
 * Quotes from other servers (docs/federation.md, "Quotes"), as Mastodon 4.5 reads them: the quote of an incoming
 * Note (ActivityPub::Parser::StatusParser#quote_uri and VerifyQuoteService), a QuoteRequest for a local post
 * (ActivityPub::Activity::QuoteRequest), the Accept or Reject of our QuoteRequest, and the Delete of a stamp.
 */
type Json = Record<string, unknown>

const first = (v: unknown) => (Array.isArray(v) ? v[0] : v)

/** The keys a Note may name its quote by, in Mastodon's order (StatusParser#quote_uri). */
const QUOTE_KEYS = ['quote', '_misskey_quote', 'quoteUrl', 'quoteUri'] as const

/** How deep a chain of quotes is fetched while storing one post (Mastodon's MAX_SYNCHRONOUS_DEPTH). */
const MAX_QUOTE_DEPTH = 2

/** Mastodon's `quote_subpolicy`: the actors of a `canQuote` list as policy keys. */
function subpolicy(value: unknown, author: AccountRow): string[] {
  const actors = new Set((Array.isArray(value) ? value : value === undefined ? [] : [value]).map(idOf))
  const keys: string[] = []
  const take = (...names: (string | undefined | null)[]) => {
    let found = false
    for (const n of names) if (n && actors.delete(n)) found = true
    return found
  }
  if (take('as:Public', 'Public', PUBLIC_COLLECTION)) keys.push('public')
  if (take(author.followers_url ?? `${author.uri}/followers`)) keys.push('followers')
  if (take(author.following_url ?? `${author.uri}/following`)) keys.push('following')
  actors.delete(author.uri ?? '')
  actors.delete(undefined)
  if (actors.size) keys.push('unsupported_policy')
  return keys
}

/**
 * What an incoming Note (created or edited) says of quotes: its quote policy (`interactionPolicy.canQuote`), and the
 * post it quotes, by `quote` (FEP-044f) or the older `_misskey_quote`, `quoteUrl`, `quoteUri`. A quote without
 * `quote` is legacy (Mastodon's `legacy_quote?`); it is accepted only when its stamp (`quoteAuthorization`) checks
 * out, or when it quotes its own author's post; else it stays pending, shown as the text link its author wrote.
 */
export async function storeRemoteQuote(
  fed: Federation,
  author: AccountRow,
  status: StatusRow,
  object: Json,
  depth = 0,
): Promise<void> {
  const policy = (object.interactionPolicy as Json | undefined)?.canQuote as Json | undefined
  await fed
    .db('statuses')
    .where({ id: status.id })
    .update({
      quote_automatic: subpolicy(policy?.automaticApproval, author),
      quote_manual: subpolicy(policy?.manualApproval, author),
    })
  const key = QUOTE_KEYS.find((k) => object[k] !== undefined && object[k] !== null && object[k] !== '')
  const existing: QuoteRow | undefined = await fed.db('quotes').where({ status_id: status.id }).first()
  if (!key) {
    if (existing) await fed.db('quotes').where({ id: existing.id }).delete()
    return
  }
  const quotedUri = idOf(first(object[key]))
  const legacy = !('quote' in object)
  const approvalUri = idOf(first(object.quoteAuthorization))
  let quoted = await statusByUri(fed, fed.db, quotedUri)
  if (!quoted && quotedUri && depth < MAX_QUOTE_DEPTH)
    quoted = await fetchStatus(fed, quotedUri, depth + 1).catch(() => undefined)
  if (quoted?.reblog_of_id) quoted = undefined
  let quote = existing
  if (quote && (quote.quoted_uri !== quotedUri || (quoted && quote.quoted_status_id !== quoted.id))) {
    await fed.db('quotes').where({ id: quote.id }).delete()
    quote = undefined
  }
  if (!quote) {
    ;[quote] = await fed
      .db('quotes')
      .insert({
        status_id: status.id,
        account_id: author.id,
        quoted_status_id: quoted?.id ?? null,
        quoted_account_id: quoted?.account_id ?? null,
        quoted_uri: quotedUri ?? null,
        legacy,
        approval_uri: approvalUri && !approvalUri.startsWith(`${fed.urls.base}/`) ? approvalUri : null,
      })
      .onConflict('status_id')
      .ignore()
      .returning('*')
    if (!quote) return
  }
  if (quote.state === 'accepted' || quote.state === 'revoked' || !quoted) return
  if (quoted.account_id === author.id) return accept(fed, quote)
  if (!approvalUri) return
  if (approvalUri.startsWith(`${fed.urls.base}/`)) {
    // Our own stamp: the quote was accepted here, when its QuoteRequest came (quoteRequest below).
    return
  }
  await fed.db('quotes').where({ id: quote.id }).update({ approval_uri: approvalUri })
  let stamp: Json | undefined
  try {
    stamp = await fed.fetchJson(approvalUri)
  } catch (err) {
    fed.logger.info({ err, approvalUri }, 'quote stamp could not be fetched')
  }
  if (!stamp) return void (await fed.db.transaction((trx) => rejectQuote(trx, quote)))
  const quotedAuthor: AccountRow | undefined = await fed
    .db('accounts')
    .where({ id: quoted.account_id })
    .first()
  const attributedTo = idOf(stamp.attributedTo)
  if (
    idOf(stamp.id) === approvalUri &&
    [stamp.type].flat().includes('QuoteAuthorization') &&
    sameHost(approvalUri, attributedTo) &&
    idOf(stamp.interactingObject) === status.uri &&
    idOf(stamp.interactionTarget) === quotedUri &&
    quotedAuthor &&
    attributedTo === actorUriOf(fed.urls, quotedAuthor)
  )
    await accept(fed, quote)
}

async function accept(fed: Federation, quote: QuoteRow) {
  await fed.db.transaction(async (trx) => {
    const [row]: QuoteRow[] = await trx('quotes')
      .where({ id: quote.id })
      .whereNot({ state: 'accepted' })
      .update({ state: 'accepted', updated_at: trx.fn.now() })
      .returning('*')
    if (row) await outbox.add(trx, quoteEvent('quote.accepted', row))
  })
}

/**
 * Mastodon's ActivityPub::Activity::QuoteRequest: someone asks to quote a local public or unlisted post. The quoting
 * post (`instrument`: inlined on the signer's host, or fetched) is stored, and the quote accepted with a stamp
 * served at its URL when the post's policy lets the signer quote it (automatic or manual: Roost has no review, as
 * Mastodon 4.5), else the request is rejected.
 */
export async function quoteRequest(fed: Federation, deliver: Deliver, signer: AccountRow, activity: Json) {
  const id = idOf(activity.id)
  if (!id || !sameHost(id, signer.uri!)) return
  const quotedUri = idOf(activity.object)
  const quoted = await statusByUri(fed, fed.db, quotedUri)
  if (!quoted || quoted.uri || quoted.reblog_of_id) return
  if (quoted.visibility !== 'public' && quoted.visibility !== 'unlisted') return
  const quotedAuthor: AccountRow | undefined = await fed
    .db('accounts')
    .where({ id: quoted.account_id })
    .first()
  if (!quotedAuthor) return
  const quotedActor = actorUriOf(fed.urls, quotedAuthor)
  const instrumentUri = idOf(activity.instrument)
  if (!instrumentUri) return
  const request = { id, actor: signer.uri!, object: quotedUri!, instrument: instrumentUri }
  const permission = await quotePermission(fed.db, quoted, signer.id)
  if (permission === 'denied' || permission === 'unknown') {
    await deliver(
      renderQuoteAnswer('Reject', quotedActor, request, `${signer.id}-${Date.now()}`),
      quotedAuthor.id,
      [signer],
      `quote-reject-${signer.id}-${Date.now()}`,
    )
    return
  }
  let status = await statusByUri(fed, fed.db, instrumentUri)
  const inlined = activity.instrument
  if (!status && inlined && typeof inlined === 'object' && sameHost(instrumentUri, signer.uri!))
    status = await createRemoteStatus(fed, signer, inlined as Json, true)
  status ??= await fetchStatus(fed, instrumentUri).catch(() => undefined)
  if (!status || status.account_id !== signer.id) return
  const quote = await fed.db.transaction(async (trx) => {
    const row: QuoteRow | undefined = await trx('quotes').where({ status_id: status.id }).forUpdate().first()
    if (!row || row.quoted_status_id !== quoted.id) return undefined
    const [updated]: QuoteRow[] = await trx('quotes')
      .where({ id: row.id })
      .update({ state: 'accepted', activity_uri: id, updated_at: trx.fn.now() })
      .returning('*')
    if (row.state !== 'accepted') await outbox.add(trx, quoteEvent('quote.accepted', updated!))
    return updated
  })
  if (!quote) return
  await deliver(
    renderQuoteAnswer(
      'Accept',
      quotedActor,
      request,
      quote.id,
      stampUri(fed.urls, quotedAuthor.username, quote.id),
    ),
    quotedAuthor.id,
    [signer],
    `quote-accept-${quote.id}`,
  )
}

/**
 * The Accept or Reject of one of our QuoteRequests (the object is it, or its id), from the quoted author only
 * (Mastodon's `accept_quote!`, `reject_quote!`). An Accept's `result` is the stamp, on the signer's host. Returns
 * whether the activity was about a quote.
 */
export async function quoteAnswer(fed: Federation, signer: AccountRow, activity: Json, accepted: boolean) {
  const object = activity.object
  const requestId = idOf(object)
  const type = object && typeof object === 'object' ? (object as Json).type : undefined
  if (!requestId || (type !== undefined && type !== 'QuoteRequest')) return false
  const quote: QuoteRow | undefined = await fed.db('quotes').where({ activity_uri: requestId }).first()
  if (!quote) return type === 'QuoteRequest'
  if (quote.quoted_account_id !== signer.id) return true
  if (!accepted) {
    await fed.db.transaction((trx) => rejectQuote(trx, quote))
    return true
  }
  const result = idOf(first(activity.result))
  if (quote.state !== 'pending' || !result || !sameHost(result, signer.uri!)) return true
  await fed.db.transaction(async (trx) => {
    const [row]: QuoteRow[] = await trx('quotes')
      .where({ id: quote.id, state: 'pending' })
      .update({ state: 'accepted', approval_uri: result, updated_at: trx.fn.now() })
      .returning('*')
    if (row) await outbox.add(trx, quoteEvent('quote.accepted', row))
  })
  return true
}

/**
 * A Delete of a stamp (embedded or by its id) by the quoted author: the quote it authorised is revoked (Mastodon's
 * `revoke_quote`). Returns whether the object was a stamp we know.
 */
export async function stampDeleted(fed: Federation, signer: AccountRow, object: unknown) {
  const uri = idOf(object)
  if (!uri) return false
  const quote: QuoteRow | undefined = await fed.db('quotes').where({ approval_uri: uri }).first()
  if (!quote) return false
  if (quote.quoted_account_id === signer.id) await fed.db.transaction((trx) => rejectQuote(trx, quote))
  return true
}

/** The stamp a local author gave, as served at its URL (null when there is none to show to the public). */
export async function localStamp(fed: Federation, username: string, quoteId: string) {
  const quote: QuoteRow | undefined = /^\d{1,19}$/.test(quoteId)
    ? await fed.db('quotes').where({ id: quoteId, state: 'accepted' }).first()
    : undefined
  if (!quote?.quoted_status_id) return undefined
  const [status, quoted]: (StatusRow | undefined)[] = await Promise.all([
    fed.db('statuses').where({ id: quote.status_id }).first(),
    fed.db('statuses').where({ id: quote.quoted_status_id }).first(),
  ])
  if (!status || !quoted || quoted.uri) return undefined
  if (quoted.visibility !== 'public' && quoted.visibility !== 'unlisted') return undefined
  const [author, quoter]: (AccountRow | undefined)[] = await Promise.all([
    fed.db('accounts').where({ id: quoted.account_id }).first(),
    fed.db('accounts').where({ id: status.account_id }).first(),
  ])
  if (!author || author.domain || author.username !== username || !quoter) return undefined
  return {
    id: stampUri(fed.urls, author.username, quote.id),
    type: 'QuoteAuthorization',
    attributedTo: actorUriOf(fed.urls, author),
    interactingObject: objectUriOf(fed.urls, status, quoter),
    interactionTarget: objectUriOf(fed.urls, quoted, author),
  }
}
