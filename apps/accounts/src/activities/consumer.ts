import type { Knex } from '@roost/db'
import type { ActivityName, ActivityOf } from '@roost/events'
import type { StatusRow } from '../entities/status'

/**
 * The rows an activity names, read when the worker handles it and shared by its consumers: a status read once
 * instead of once per consumer (docs/activities.md, "The accounts worker"). A consumer that must hold a row while
 * it works still locks it in its own transaction.
 */
export interface ActivityReads {
  status(id: string): Promise<StatusRow | undefined>
}

export function activityReads(db: Knex): ActivityReads {
  const statuses = new Map<string, Promise<StatusRow | undefined>>()
  return {
    status(id) {
      let row = statuses.get(id)
      if (!row) statuses.set(id, (row = db('statuses').where({ id }).first()))
      return row
    },
  }
}

/**
 * What a consumer of activities does with each kind it cares about (docs/activities.md). The accounts worker
 * runs every consumer's handler for each activity; a handler must be idempotent (a job may run again after a
 * crash or a retry) and must not trust the order of activities (it reads the rows it acts on when it runs).
 */
export type Consumer = {
  [N in ActivityName]?: (activity: ActivityOf<N>, reads: ActivityReads) => Promise<void>
}
