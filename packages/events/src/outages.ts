import { DelayedError, UnrecoverableError } from 'bullmq'
import type { Job } from 'bullmq'

/** How long a job that met an outage of Roost's own Postgres waits before it runs again. */
export const OUTAGE_RETRY_MS = 2000

/**
 * Wraps a job processor so that a job failing while Roost's own database is down is put back to wait for it
 * without spending one of its attempts (docs/activities.md, "Workers"). Attempts and their backoff are for the
 * job's own failures (a push service's 500, another server down); an outage longer than a job's backoff must
 * delay its work, never drop it. `databaseDown` is asked only after a failure, so a failure that merely looks
 * like an outage (another server refusing a connection) still counts while the database answers.
 */
export function waitingOutOutages<T>(
  processor: (job: Job, token?: string) => Promise<T>,
  databaseDown: () => Promise<boolean>,
) {
  return async (job: Job, token?: string): Promise<T> => {
    try {
      return await processor(job, token)
    } catch (err) {
      if (
        err instanceof DelayedError ||
        err instanceof UnrecoverableError ||
        !token ||
        !(await databaseDown())
      )
        throw err
      await job.moveToDelayed(Date.now() + OUTAGE_RETRY_MS, token)
      throw new DelayedError()
    }
  }
}
