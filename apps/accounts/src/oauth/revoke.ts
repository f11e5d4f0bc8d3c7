import type { Request, Response } from 'express'
import { decodeJwt, jwtVerify } from 'jose'
import { readParams, revokeParams } from '@roost/routes'
import { oauthError } from '@roost/service'
import type { AccountsContext } from '../context'
import { authenticateClient, clientCredentials } from './clients'
import { guardCredentials } from './throttle'
import { revokeTokens } from '../domain/tokens'

const unauthorizedClient = () =>
  oauthError(403, 'unauthorized_client', 'You are not authorized to revoke this token')

/**
 * POST /oauth/revoke (RFC 7009): 200 `{}` when revoked or when the token is unknown; 403 when client
 * authentication fails or the token belongs to another app. Revoking also ends the token's push subscription
 * (through the `token.revoked` event).
 */
export async function revoke(ctx: AccountsContext, req: Request, res: Response) {
  const p = readParams(req, revokeParams)
  const { clientId } = clientCredentials(req, p)
  const throttle = await guardCredentials(ctx, req, res, [clientId && `client:${clientId}`])
  const app = await authenticateClient(ctx, req, p)
  if (!app) {
    await throttle.fail()
    throw unauthorizedClient()
  }
  if (typeof p.token !== 'string' || !p.token) return res.json({})
  let tokenId: string | undefined
  try {
    await jwtVerify(p.token, ctx.keys.localKeySet, { algorithms: ['ES256'] })
    tokenId = decodeJwt(p.token).jti
  } catch {
    return res.json({}) // not one of ours: nothing to revoke
  }
  const row = tokenId ? await ctx.db('oauth_access_tokens').where({ id: tokenId }).first() : undefined
  if (!row) return res.json({})
  if (row.application_id !== app.id) throw unauthorizedClient()
  await revokeTokens(ctx, (q) => q.where({ id: row.id }))
  res.json({})
}
