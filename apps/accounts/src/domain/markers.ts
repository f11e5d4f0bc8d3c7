import type { Knex } from '@roost/db'
import { Conflict, Invalid } from '@roost/errors'
import { parseId } from './records'
import type { MarkerRow, MarkerTimeline } from '../db/rows'

/** The timelines a marker can be kept for (Mastodon's Marker::TIMELINES). */
export const MARKER_TIMELINES = ['home', 'notifications'] as const satisfies readonly MarkerTimeline[]

/** Two saves of one marker raced; Mastodon's answer to ActiveRecord's StaleObjectError. */
export const markerConflict = () => new Conflict('Conflict during update, please try again')

/** A user's markers of the given timelines (unknown names are ignored), keyed by timeline. */
export async function markersOf(db: Knex, userId: string, timelines: readonly string[]) {
  const wanted = MARKER_TIMELINES.filter((t) => timelines.includes(t))
  const rows: MarkerRow[] = wanted.length
    ? await db('markers').where({ user_id: userId }).whereIn('timeline', wanted)
    : []
  return new Map(rows.map((r) => [r.timeline, r]))
}

/**
 * Saves the read positions in `positions` (docs/discovery.md, "Markers"), in the caller's transaction. Each save
 * that changes a marker increments its `lock_version` with an optimistic lock: when another save of the same marker
 * committed in between, the whole call fails with 409 (nothing is saved), as Mastodon's. A marker may move
 * backwards; saving the position it already has changes nothing.
 */
export async function saveMarkers(
  trx: Knex,
  userId: string,
  positions: Partial<Record<MarkerTimeline, string | undefined>>,
): Promise<Map<MarkerTimeline, MarkerRow>> {
  const saved = new Map<MarkerTimeline, MarkerRow>()
  for (const timeline of MARKER_TIMELINES) {
    if (!(timeline in positions)) continue
    const lastReadId = parseId(positions[timeline])
    if (!lastReadId) throw new Invalid("Validation failed: Last read can't be blank")
    const current: MarkerRow | undefined = await trx('markers').where({ user_id: userId, timeline }).first()
    let row: MarkerRow | undefined
    if (!current) {
      ;[row] = await trx('markers')
        .insert({ user_id: userId, timeline, last_read_id: lastReadId })
        .onConflict(['user_id', 'timeline'])
        .ignore()
        .returning('*')
    } else if (current.last_read_id === lastReadId) {
      row = current
    } else {
      ;[row] = await trx('markers')
        .where({ id: current.id, lock_version: current.lock_version })
        .update({
          last_read_id: lastReadId,
          lock_version: current.lock_version + 1,
          updated_at: trx.fn.now(),
        })
        .returning('*')
    }
    if (!row) throw markerConflict()
    saved.set(timeline, row)
  }
  return saved
}

/** Mastodon's Marker entity. */
export const renderMarker = (m: MarkerRow) => ({
  last_read_id: String(m.last_read_id),
  version: m.lock_version,
  updated_at: new Date(m.updated_at).toISOString(),
})

export const renderMarkers = (markers: Map<MarkerTimeline, MarkerRow>) =>
  Object.fromEntries([...markers].map(([timeline, m]) => [timeline, renderMarker(m)]))
