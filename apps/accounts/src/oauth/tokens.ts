import type { Knex } from '@roost/db'
import type { AccountsContext } from '../context'
import type { AccessTokenRow } from '../db/rows'

/** Creates the token row and signs the JWT that stands for it (claims as in docs/architecture.md, "Tokens"). */
export async function issueToken(
  ctx: AccountsContext,
  grant: { applicationId: string; clientId: string; userId: string | null; scopes: string[] },
  db: Knex = ctx.db,
) {
  const [row] = await db<AccessTokenRow>('oauth_access_tokens')
    .insert({ application_id: grant.applicationId, user_id: grant.userId, scopes: grant.scopes.join(' ') })
    .returning('*')
  const claims: Record<string, unknown> = { jti: row!.id, scope: row!.scopes, client_id: grant.clientId }
  if (grant.userId) {
    claims.sub = grant.userId
    // The streaming service reads no database: the token tells it whose channels to open.
    const user = await db('users').where({ id: grant.userId }).first('account_id')
    claims.account_id = user!.account_id
  }
  const accessToken = await ctx.keys.sign(claims)
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    scope: row!.scopes,
    created_at: Math.floor(row!.created_at.getTime() / 1000),
  }
}
