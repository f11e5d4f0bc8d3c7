import type { Request, Response } from 'express'
import { Forbidden, Unauthenticated } from '@roost/errors'
import type { AccountsContext } from '../../context'
import type { AccountRow } from '../../db/rows'
import type { SignedFetch } from './activity-json'
import { wantsActivityJson } from './activity-json'
import { isUrlBlocked } from '../../federation/domain-blocks'
import { requestOrigins, signerOf } from './inbox'
import { checkSignedRequest, SignatureError } from '../../federation/transport/signatures'

/**
 * Secure mode, Mastodon's AUTHORIZED_FETCH (docs/federation.md, "Authorized fetch"): with AUTHORIZED_FETCH on, the
 * ActivityPub documents of local accounts are served only to GETs signed by an actor of a server that is not
 * suspended, as Mastodon's `require_account_signature!`: unsigned is a 401 `Request not signed`, a bad signature a
 * 401 with Mastodon's reason, a suspended server's key a 403. The actor itself stays readable unsigned but shows
 * only what a key fetch needs (id, type, preferredUsername, inbox, publicKey, endpoints: Mastodon's
 * `restrict_fields_to`), so that peers can verify our signatures. The instance actor, WebFinger and NodeInfo are
 * always open. Answers then vary by `Signature`, and those to signed fetches are not cached by shared caches.
 */

/** The remote account that signed the request (Mastodon's `signed_request_account`); throws a domain error if refused. */
export async function signedRequestAccount(ctx: AccountsContext, req: Request): Promise<AccountRow> {
  let checked
  try {
    checked = checkSignedRequest({
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
      origins: requestOrigins(ctx, req),
    })
  } catch (err) {
    if (err instanceof SignatureError) throw new Unauthenticated(err.message, { cause: err })
    throw err
  }
  if (await isUrlBlocked(ctx.db, checked.keyId))
    throw new Forbidden(`Public key not found for key ${checked.keyId}`)
  const account = await signerOf(ctx.federation, checked)
  // The key's actor may live on a suspended subdomain of the key's host, or have been suspended by a block.
  if (account.suspended_at || (account.domain && (await isUrlBlocked(ctx.db, `https://${account.domain}/`))))
    throw new Forbidden(`Public key not found for key ${checked.keyId}`)
  return account
}

type Handler = (ctx: AccountsContext, req: Request, res: Response) => unknown

/**
 * Wraps the handler of an ActivityPub document. `actor`: the actor, readable unsigned with restricted fields;
 * `object`: collections and statuses, refused unsigned. HTML requests of the same URLs (pages) are not concerned.
 */
export function authorizedFetch(kind: 'actor' | 'object', handler: Handler): Handler {
  return async (ctx, req, res) => {
    if (ctx.config.AUTHORIZED_FETCH && ctx.config.FEDERATION && wantsActivityJson(req)) {
      const signedFetch: SignedFetch = { on: true }
      if (kind === 'object') {
        if (!req.get('Signature')) throw new Unauthenticated('Request not signed')
        signedFetch.account = await signedRequestAccount(ctx, req)
      } else if (req.get('Signature')) {
        // As Mastodon: a signature that does not verify on the actor just gets the restricted actor.
        signedFetch.account = await signedRequestAccount(ctx, req).catch((err: unknown) => {
          if (err instanceof Unauthenticated || err instanceof Forbidden) return undefined
          throw err
        })
      }
      res.locals.signedFetch = signedFetch
    }
    return handler(ctx, req, res)
  }
}

/** Mastodon's `restrict_fields_to` for an actor asked without a (valid) signature in secure mode. */
export const RESTRICTED_ACTOR_FIELDS = [
  '@context',
  'id',
  'type',
  'preferredUsername',
  'inbox',
  'publicKey',
  'endpoints',
] as const
