import { randomUUID } from 'node:crypto'
import type { AccountRow, QuoteRow, StatusRow } from '../db/rows'
import type { Federation } from '../federation/transport/client'
import type { Deliver } from '../federation/transport/delivery-queue'
import { createReads } from '../domain/reads'
import type { Reads } from '../domain/reads'
import { remoteAccounts, remoteFollowers } from '../federation/audience'
import { renderNotes } from '../federation/render/note'
import {
  renderMove,
  renderQuoteRequest,
  renderStamp,
  renderStampDelete,
  stampUri,
} from '../federation/render/quote'
import { actorUriOf, objectUriOf } from '../federation/uris'
import type { Consumer } from './consumer'

/**
 * The federation side of quotes and moves (docs/federation.md, "Quotes", "Moved accounts"), part of the federation
 * consumer: a QuoteRequest for a local quote of a remote post; the quoting Note again (an Update with its stamp) once
 * the remote author accepted; the Delete of a local author's stamp when they revoke it; the Move of a local
 * account to its followers' servers.
 */
export function quoteFederation(
  fed: Federation,
  deliver: Deliver,
  sendNote: (reads: Reads, statusId: string, accountId: string, kind: 'update', key: string) => Promise<void>,
): Consumer {
  const account = async (id: string | null): Promise<AccountRow | undefined> =>
    id ? fed.db('accounts').where({ id }).first() : undefined
  return {
    'quote.requested': async (a) => {
      if (!fed.enabled) return
      const quote: QuoteRow | undefined = await fed
        .db('quotes')
        .where({ id: a.quoteId, state: 'pending' })
        .first()
      const [quoter, quotedAuthor] = [await account(a.accountId), await account(a.quotedAccountId)]
      const quoted: StatusRow | undefined = a.quotedStatusId
        ? await fed.db('statuses').where({ id: a.quotedStatusId }).first()
        : undefined
      const status: StatusRow | undefined = await fed.db('statuses').where({ id: a.statusId }).first()
      if (!quote || !quoter || quoter.domain || !quotedAuthor?.domain || !quoted || !status) return
      const actor = actorUriOf(fed.urls, quoter)
      // The request's id is made once, the first time it is sent, so that a replay sends the same one.
      if (!quote.activity_uri) {
        const [row]: QuoteRow[] = await fed
          .db('quotes')
          .where({ id: quote.id })
          .whereNull('activity_uri')
          .update({ activity_uri: `${actor}/quote_requests/${randomUUID()}` })
          .returning('*')
        quote.activity_uri =
          row?.activity_uri ?? (await fed.db('quotes').where({ id: quote.id }).first()).activity_uri
      }
      const note = (await renderNotes(fed.db, fed.urls, [status])).get(status.id)
      if (!note) return
      await deliver(
        renderQuoteRequest(quote, actor, objectUriOf(fed.urls, quoted, quotedAuthor), note),
        quoter.id,
        [quotedAuthor],
        `quote-request-${quote.id}`,
      )
    },
    // A remote author accepted a local quote: the Note goes out again, now with its stamp (Mastodon's Accept).
    'quote.accepted': async (a) => {
      const [quoter, quotedAuthor] = [await account(a.accountId), await account(a.quotedAccountId)]
      if (!quoter || quoter.domain || !quotedAuthor?.domain) return
      await sendNote(createReads(fed.db), a.statusId, a.accountId, 'update', `quote-accepted-${a.quoteId}`)
    },
    // A local author revoked a quote of their post: the stamp's Delete to the quoter and the author's followers.
    'quote.revoked': async (a) => {
      if (!fed.enabled) return
      const [quoter, quotedAuthor] = [await account(a.accountId), await account(a.quotedAccountId)]
      if (!quoter || !quotedAuthor || quotedAuthor.domain) return
      const status: StatusRow | undefined = await fed.db('statuses').where({ id: a.statusId }).first()
      const quoted: StatusRow | undefined = a.quotedStatusId
        ? await fed.db('statuses').where({ id: a.quotedStatusId }).first()
        : undefined
      if (!status || !quoted) return
      const audience = [
        ...(await remoteAccounts(fed.db, [quoter.id])),
        ...(await remoteFollowers(fed.db, quotedAuthor.id)),
      ]
      if (!audience.length) return
      const stamp = renderStamp(
        stampUri(fed.urls, quotedAuthor.username, a.quoteId),
        actorUriOf(fed.urls, quotedAuthor),
        objectUriOf(fed.urls, status, quoter),
        objectUriOf(fed.urls, quoted, quotedAuthor),
      )
      await deliver(renderStampDelete(stamp), quotedAuthor.id, audience, `quote-revoke-${a.quoteId}`)
    },
    // A local account moved away (Mastodon's MoveWorker's sender side): a Move to its followers' servers.
    'account.moved': async (a) => {
      if (!fed.enabled) return
      const [origin, target] = [await account(a.accountId), await account(a.targetAccountId)]
      if (!origin || origin.domain || !target) return
      const followers = await remoteFollowers(fed.db, origin.id)
      if (!followers.length) return
      const actor = actorUriOf(fed.urls, origin)
      await deliver(
        renderMove(actor, actorUriOf(fed.urls, target), `${actor}#moves/${target.id}`),
        origin.id,
        followers,
        `move-${origin.id}-${target.id}`,
      )
    },
  }
}
