import type { ActivityName, ActivityOf } from '@roost/events'

/**
 * What a consumer of activities does with each kind it cares about (docs/activities.md). The accounts worker
 * runs every consumer's handler for each activity; a handler must be idempotent (a job may run again after a
 * crash or a retry) and must not trust the order of activities (it re-reads the rows it acts on).
 */
export type Consumer = { [N in ActivityName]?: (activity: ActivityOf<N>) => Promise<void> }
