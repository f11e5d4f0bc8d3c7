import type { Knex } from '@roost/db'
import type { AccountsContext } from '../context'
import * as outbox from '../outbox/outbox'

export interface AccessTokenRow {
  id: string
  application_id: string
  user_id: string | null
  scopes: string
  created_at: Date
  revoked_at: Date | null
}

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

/**
 * Revokes tokens: `revoked_at` on the rows (the durable record), the revocation list in Redis (effective at
 * once everywhere), and a `token.revoked` event per token so push drops their subscriptions.
 */
export async function revokeTokens(
  ctx: Pick<AccountsContext, 'db' | 'revocations'>,
  where: (q: Knex.QueryBuilder) => void,
): Promise<string[]> {
  const rows = await ctx.db.transaction(async (trx) => {
    const revoked = await trx<AccessTokenRow>('oauth_access_tokens')
      .whereNull('revoked_at')
      .where(where)
      .update({ revoked_at: trx.fn.now() })
      .returning(['id', 'user_id'])
    await outbox.add(
      trx,
      ...revoked.map((row) => ({
        event: 'token.revoked' as const,
        tokenId: row.id,
        ...(row.user_id ? { userId: row.user_id } : {}),
      })),
    )
    // Inside the transaction: if Redis cannot record it, nothing is revoked and the caller sees the error.
    await ctx.revocations.revoke(...revoked.map((r) => r.id))
    return revoked
  })
  return rows.map((r) => r.id)
}
