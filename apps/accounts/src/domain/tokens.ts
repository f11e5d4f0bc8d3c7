import type { RevocationList } from '@roost/auth'
import type { Knex } from '@roost/db'
import * as outbox from '../outbox/outbox'
import type { AccessTokenRow } from '../db/rows'

/**
 * Access tokens as rows: revoking them, which both the OAuth server (oauth/revoke.ts) and moderation
 * (moderation.ts) do. Issuing them, which signs a JWT, is the OAuth server's (oauth/tokens.ts).
 */

/**
 * Revokes tokens: `revoked_at` on the rows (the durable record), the revocation list in Redis (effective at
 * once everywhere), and a `token.revoked` event per token so push drops their subscriptions.
 */
export async function revokeTokens(
  ctx: { db: Knex; revocations: RevocationList },
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
