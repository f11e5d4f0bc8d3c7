import type { Knex } from '@roost/db'

/**
 * When a poll's end was notified (docs/statuses.md, "Polls"): the timer that ends a poll sets it, and the accounts
 * worker's sweep finds polls that ended without it (their timer was lost with Redis) and ends them again.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('polls', (t) => {
    t.timestamp('expiry_notified_at', { useTz: true })
  })
  // Polls that ended before timers existed are not announced now, long after the fact.
  await db('polls').where('expires_at', '<=', db.fn.now()).update({ expiry_notified_at: db.fn.now() })
  await db.raw('CREATE INDEX polls_expiring ON polls (expires_at) WHERE expiry_notified_at IS NULL')
}
