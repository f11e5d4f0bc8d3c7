import type { ActivityName, ActivityOf } from '@roost/events'
import type { Reads } from '../domain/reads'

/**
 * What a consumer of activities does with each kind it cares about (docs/activities.md). The accounts worker
 * runs every consumer's handler for each activity, with the rows the activity names read once for all of them
 * (`Reads`); a handler must be idempotent (a job may run again after a crash or a retry) and must not trust the
 * order of activities (it reads the rows it acts on when it runs).
 */
export type Consumer = {
  [N in ActivityName]?: (activity: ActivityOf<N>, reads: Reads) => Promise<void>
}
