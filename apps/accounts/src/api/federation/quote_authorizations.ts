import type { Request, Response } from 'express'
import { NotFound } from '@roost/errors'
import type { AccountsContext } from '../../context'
import { QUOTE_CONTEXT } from '../../federation/render/contexts'
import { localStamp } from '../../federation/inbox/quotes'
import { sendActivityJson } from './activity-json'

/**
 * GET /users/:username/quote_authorizations/:id: the stamp a local author gave a quote of a public or unlisted post
 * (Mastodon's ActivityPub::QuoteAuthorizationsController; docs/federation.md, "Quotes"). A revoked, rejected or
 * unknown one is a 404, which is how a peer checking the stamp learns it is gone.
 */
export async function quoteAuthorizationDocument(ctx: AccountsContext, req: Request, res: Response) {
  if (!ctx.config.FEDERATION) throw new NotFound()
  const stamp = await localStamp(ctx.federation, String(req.params.username), String(req.params.id))
  if (!stamp) throw new NotFound()
  sendActivityJson(res, { '@context': QUOTE_CONTEXT, ...stamp }, { maxAge: 30, shared: true })
}
