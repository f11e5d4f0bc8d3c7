import type { Knex } from '@roost/db'

/**
 * Hosts that keep failing (docs/federation.md, "Delivery"), as Mastodon's DeliveryFailureTracker and
 * UnavailableDomain: each day on which a delivery to a host ran out of attempts is recorded; once such days
 * number `FAILURE_DAYS` the host is unavailable and nothing more is sent to it, until it is heard from again (a
 * delivery that succeeds, or a signed activity from it in our inbox).
 */
export const FAILURE_DAYS = 7

/** A delivery to `domain` ran out of attempts on `now`'s day; returns whether the host is now unavailable. */
export async function recordFailure(
  db: Knex,
  domain: string,
  now = new Date(),
  days = FAILURE_DAYS,
): Promise<boolean> {
  const day = now.toISOString().slice(0, 10)
  const { rows } = await db.raw<{ rows: { unavailable: boolean }[] }>(
    `INSERT INTO delivery_failures (domain, failure_days) VALUES (:domain, ARRAY[:day::date])
     ON CONFLICT (domain) DO UPDATE SET failure_days = (
       SELECT array_agg(DISTINCT d ORDER BY d) FROM unnest(delivery_failures.failure_days || :day::date) AS d)
     RETURNING cardinality(failure_days) >= :days AS unavailable`,
    { domain, day, days },
  )
  const unavailable = !!rows[0]?.unavailable
  if (unavailable)
    await db('delivery_failures')
      .where({ domain })
      .whereNull('unavailable_since')
      .update({ unavailable_since: now })
  return unavailable
}

/** The host answered, or spoke to us: its failures are forgotten and it is available again. */
export async function heardFrom(db: Knex, domain: string) {
  await db('delivery_failures').where({ domain }).delete()
}

/** Whether deliveries to `domain` are suspended because it kept failing. */
export async function isUnavailable(db: Knex, domain: string): Promise<boolean> {
  return !!(await db('delivery_failures').where({ domain }).whereNotNull('unavailable_since').first('domain'))
}
