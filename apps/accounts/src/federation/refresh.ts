import type { Federation } from './transport/client'
import { resolveActor } from './remote-accounts'
import { syncFeatured } from './inbox/featured'

/** Remote profiles refreshed per round at most, per worker process (a round a minute). */
export const REFRESH_BATCH = 20

/**
 * Periodic profile refreshes (docs/federation.md, "Remote accounts"): remote accounts that a local account follows
 * or is followed by (or asked to), whose profile was fetched over a day ago, are fetched again, the oldest first and
 * at most `limit` a round. Each is claimed first (`refresh_attempted_at`, with SKIP LOCKED so that worker processes
 * share the work), so that one whose server does not answer is tried again an hour later, not at every round;
 * suspended accounts, and hosts that are unavailable or suspended, are left alone. Returns the URIs refreshed.
 */
export async function refreshStaleAccounts(fed: Federation, limit = REFRESH_BATCH): Promise<string[]> {
  const { rows } = await fed.db.raw<{ rows: { uri: string }[] }>(
    `UPDATE accounts SET refresh_attempted_at = now()
     WHERE id IN (
       SELECT a.id FROM accounts a
       WHERE a.domain IS NOT NULL AND a.uri IS NOT NULL AND a.suspended_at IS NULL
         AND (a.fetched_at IS NULL OR a.fetched_at < now() - interval '1 day')
         AND (a.refresh_attempted_at IS NULL OR a.refresh_attempted_at < now() - interval '1 hour')
         AND (EXISTS (SELECT 1 FROM follows f WHERE f.account_id = a.id OR f.target_account_id = a.id)
           OR EXISTS (SELECT 1 FROM follow_requests r WHERE r.account_id = a.id OR r.target_account_id = a.id))
         AND NOT EXISTS (SELECT 1 FROM delivery_failures d
                         WHERE d.domain = a.domain AND d.unavailable_since IS NOT NULL)
       ORDER BY a.fetched_at NULLS FIRST
       LIMIT :limit
       FOR UPDATE SKIP LOCKED)
     RETURNING uri`,
    { limit },
  )
  const refreshed: string[] = []
  for (const { uri } of rows) {
    try {
      // A suspended host is refused inside (remote-accounts.ts); a failure leaves the stored profile as it was.
      const account = await resolveActor(fed, uri, { refresh: true })
      // Its pinned posts and featured hashtags too (docs/federation.md, "Pinned posts and featured hashtags").
      await syncFeatured(fed, account)
      refreshed.push(uri)
    } catch (err) {
      fed.logger.info({ err, uri }, 'remote profile could not be refreshed; trying again in an hour')
    }
  }
  return refreshed
}
