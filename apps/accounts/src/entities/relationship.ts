import type { Knex } from '@roost/db'
import { activeMute, blockedDomains, domainBlockCovers } from '../queries/relationships'

/** Mastodon's Relationship entity (docs/mastodon-compatibility.md, "Accounts"), for one viewer and many targets, in the targets' order. */
export async function renderRelationships(db: Knex, viewerId: string, targetIds: string[]) {
  if (!targetIds.length) return []
  const mine = (table: string) =>
    db(table).where({ account_id: viewerId }).whereIn('target_account_id', targetIds)
  const theirs = (table: string) =>
    db(table).where({ target_account_id: viewerId }).whereIn('account_id', targetIds)
  const [
    following,
    followedBy,
    requested,
    requestedBy,
    blocking,
    blockedBy,
    muting,
    endorsing,
    notes,
    domains,
    blockedHosts,
  ] = await Promise.all([
    mine('follows'),
    theirs('follows'),
    mine('follow_requests'),
    theirs('follow_requests'),
    mine('blocks'),
    theirs('blocks'),
    mine('mutes').where(activeMute(db)),
    mine('account_pins'),
    mine('account_notes'),
    db('accounts').whereIn('id', targetIds).whereNotNull('domain').select('id', 'domain') as Promise<
      { id: string; domain: string }[]
    >,
    blockedDomains(db, viewerId),
  ])
  const domainOf = new Map(domains.map((d) => [d.id, d.domain]))
  const byTarget = <T extends { target_account_id: string }>(rows: T[]) =>
    new Map(rows.map((r) => [r.target_account_id, r]))
  const byAccount = (rows: { account_id: string }[]) => new Set(rows.map((r) => r.account_id))
  const [follow, request, block, mute, endorsed, note] = [
    following,
    requested,
    blocking,
    muting,
    endorsing,
    notes,
  ].map(byTarget)
  const [follower, requester, blocker] = [followedBy, requestedBy, blockedBy].map(byAccount)
  return targetIds.map((id) => {
    const f = follow!.get(id) ?? request!.get(id)
    const m = mute!.get(id)
    return {
      id,
      following: follow!.has(id),
      showing_reblogs: f ? f.show_reblogs : false,
      notifying: f ? f.notify : false,
      languages: f ? (f.languages ?? null) : null,
      followed_by: follower!.has(id),
      blocking: block!.has(id),
      blocked_by: blocker!.has(id),
      muting: !!m,
      muting_notifications: m ? m.hide_notifications : false,
      muting_expires_at: m?.expires_at ? new Date(m.expires_at).toISOString() : null,
      requested: request!.has(id),
      requested_by: requester!.has(id),
      // The viewer blocks the remote account's domain (docs/federation.md, "Remote accounts").
      domain_blocking: domainBlockCovers(blockedHosts, domainOf.get(id)),
      endorsed: endorsed!.has(id),
      note: (note!.get(id) as { comment?: string } | undefined)?.comment ?? '',
    }
  })
}

export async function renderRelationship(db: Knex, viewerId: string, targetId: string) {
  const [relationship] = await renderRelationships(db, viewerId, [targetId])
  return relationship!
}
