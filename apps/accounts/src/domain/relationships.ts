import type { Knex } from '@roost/db'
import { Forbidden, Invalid, NotFound } from '@roost/errors'
import type { AccountRow, FollowRequestRow } from '../db/rows'
import * as outbox from '../outbox/outbox'
import { activeMute } from '../queries/relationships'
import { bigintArray } from '../queries/sql'

/**
 * Who is kept out of a viewer's listings (Mastodon's `excluded_from_timeline_account_ids` and
 * `excluded_from_timeline_domains`): `accounts` the viewer blocks or mutes (while the mute lasts) or who block the
 * viewer, and every account of the `domains` the viewer blocks (and their subdomains).
 */
export interface Hidden {
  accounts: string[]
  domains: string[]
}

export const NOBODY_HIDDEN: Hidden = { accounts: [], domains: [] }

/**
 * What `viewerId` does not see (`Hidden`), read once per request and then checked against each row (`hideAccounts`),
 * so a listing never joins blocks or mutes per row and its plan does not depend on the planner's statistics
 * (docs/performance.md, "Queries"). A blocked domain stays a domain: a large server's known accounts number tens of
 * thousands, and their ids would all travel in every listing of the user who blocks it.
 */
export async function hiddenAccounts(db: Knex, viewerId: string): Promise<Hidden> {
  const { rows } = await db.raw<{ rows: { id: string | null; domain: string | null }[] }>(
    `SELECT target_account_id AS id, NULL AS domain FROM blocks WHERE account_id = ?
     UNION SELECT account_id, NULL FROM blocks WHERE target_account_id = ?
     UNION SELECT target_account_id, NULL FROM mutes WHERE account_id = ? AND ${activeMute(db).toQuery()}
     UNION SELECT NULL, domain FROM account_domain_blocks WHERE account_id = ?`,
    [viewerId, viewerId, viewerId, viewerId],
  )
  return {
    accounts: rows.flatMap((r) => (r.id === null ? [] : [r.id])),
    domains: rows.flatMap((r) => (r.domain === null ? [] : [r.domain])),
  }
}

/** SQL: an account domain's host, lower-case, its port dropped: what a domain block names. */
const hostOf = (domainColumn: string) => `regexp_replace(lower(${domainColumn}), ':[0-9]+$', '')`

/**
 * SQL: an account domain's host reversed, in byte order: the expression of the index accounts_reversed_host. The
 * hosts a domain block covers, the domain itself and its subdomains, are one range of it.
 */
const reversedHost = (domainColumn: string) => `(reverse(${hostOf(domainColumn)}) COLLATE "C")`

/**
 * SQL: whether a user's domain block (`blockColumn`, a lower-case host) covers an account's `domain` (which may carry
 * a port): the host itself or one of its subdomains, as `domainBlockCovers` (queries/relationships.ts). Written as a
 * range of the reversed host, which the index reads: those that begin with the block reversed, then end or go on
 * with a dot ('/' is the character after '.'). A local account (no domain) is never covered; saying so lets the
 * index, which holds remote accounts only, serve.
 */
export const domainCovered = (blockColumn: string, domainColumn: string) => {
  const host = reversedHost(domainColumn)
  const block = `(reverse(${blockColumn}) COLLATE "C")`
  return `(${domainColumn} IS NOT NULL AND ${host} >= ${block} AND ${host} < ${block} || '/'
    AND (${host} = ${block} OR substr(${host}, length(${block}) + 1, 1) = '.'))`
}

/**
 * SQL and its bindings: whether the account in `accountColumn` (e.g. `accounts.id`) is `hidden`, or undefined when
 * nobody is. A blocked domain is checked on the account's own row, one primary-key read per row: a scalar subquery,
 * which Postgres runs per row as written, never as a join whose plan the statistics would choose. Its host (lower
 * case, port dropped) is the domain or ends with a dot and the domain, as `domainBlockCovers`
 * (queries/relationships.ts).
 */
export function hiddenAccountSql(
  accountColumn: string,
  hidden: Hidden,
): [string, Knex.RawBinding[]] | undefined {
  const parts: string[] = []
  const bindings: Knex.RawBinding[] = []
  if (hidden.accounts.length) {
    parts.push('?? = ANY (?::bigint[])')
    bindings.push(accountColumn, bigintArray(hidden.accounts))
  }
  if (hidden.domains.length) {
    parts.push(
      `(SELECT h.host = ANY (?::text[]) OR h.host LIKE ANY (?::text[])
          FROM accounts AS hidden_by_domain, ${hostOf('hidden_by_domain.domain')} AS h(host)
         WHERE hidden_by_domain.id = ??) IS TRUE`,
    )
    const subdomains = hidden.domains.map((d) => `%.${d.replace(/[\\%_]/g, (c) => `\\${c}`)}`)
    bindings.push(hidden.domains, subdomains, accountColumn) // pg sends an array as one array parameter
  }
  return parts.length ? [`(${parts.join(' OR ')})`, bindings] : undefined
}

/** Leaves out the rows whose account (`accountColumn`, e.g. `accounts.id`) is `hidden` (`hiddenAccounts`). */
export function hideAccounts(query: Knex.QueryBuilder, accountColumn: string, hidden: Hidden) {
  const sql = hiddenAccountSql(accountColumn, hidden)
  if (sql) query.whereRaw(`NOT ${sql[0]}`, sql[1])
  return query
}

export async function forgetExpiredMutes(db: Knex, accountId: string) {
  await db('mutes').where({ account_id: accountId }).where('expires_at', '<=', db.fn.now()).delete()
}

export async function follows(db: Knex, accountId: string, targetId: string): Promise<boolean> {
  return !!(await db('follows').where({ account_id: accountId, target_account_id: targetId }).first('id'))
}

export async function blocks(db: Knex, accountId: string, targetId: string): Promise<boolean> {
  return !!(await db('blocks').where({ account_id: accountId, target_account_id: targetId }).first('id'))
}

export async function blockedEitherWay(db: Knex, a: string, b: string): Promise<boolean> {
  return (await blocks(db, a, b)) || (await blocks(db, b, a))
}

export interface FollowOptions {
  reblogs?: boolean
  notify?: boolean
  languages?: string[] | null
}

const optionColumns = (o: FollowOptions) => ({
  ...(o.reblogs !== undefined ? { show_reblogs: o.reblogs } : {}),
  ...(o.notify !== undefined ? { notify: o.notify } : {}),
  ...(o.languages !== undefined ? { languages: o.languages ? JSON.stringify(o.languages) : null } : {}),
})

/**
 * How a change crosses servers (docs/federation.md, "Follows across servers"): `uri` is the ActivityPub id of a
 * Follow or Block that came from another server; `fromPeer` marks changes made by that server's own activity,
 * which it need not be told of.
 */
export interface Federated {
  uri?: string | null
  fromPeer?: boolean
}

const federatedFacts = (f: Federated, uri?: string | null) => ({
  ...((uri ?? f.uri) ? { uri: uri ?? f.uri } : {}),
  ...(f.fromPeer ? { fromPeer: true } : {}),
})

/** Creates a follow and moves both counters, as Mastodon's account_stats do. */
export async function createFollow(
  trx: Knex,
  accountId: string,
  targetId: string,
  options: FollowOptions,
  fed: Federated = {},
) {
  const [row] = await trx('follows')
    .insert({
      account_id: accountId,
      target_account_id: targetId,
      ...optionColumns(options),
      ...(fed.uri ? { uri: fed.uri } : {}),
    })
    .onConflict(['account_id', 'target_account_id'])
    .ignore()
    .returning('id')
  if (!row) return
  await trx('accounts').where({ id: accountId }).increment('following_count', 1)
  await trx('accounts').where({ id: targetId }).increment('followers_count', 1)
  await outbox.add(trx, {
    event: 'follow.created',
    followId: row.id,
    accountId,
    targetAccountId: targetId,
    ...federatedFacts(fed),
  })
}

export async function deleteFollow(trx: Knex, accountId: string, targetId: string, fed: Federated = {}) {
  const [removed] = await trx('follows')
    .where({ account_id: accountId, target_account_id: targetId })
    .delete()
    .returning(['id', 'uri'])
  if (!removed) return
  // An endorsement lasts as long as the follow (docs/discovery.md, "Endorsements").
  await trx('account_pins').where({ account_id: accountId, target_account_id: targetId }).delete()
  await outbox.add(trx, {
    event: 'follow.removed',
    followId: removed.id,
    accountId,
    targetAccountId: targetId,
    ...federatedFacts(fed, removed.uri),
  })
  await trx('accounts')
    .where({ id: accountId })
    .where('following_count', '>', 0)
    .decrement('following_count', 1)
  await trx('accounts')
    .where({ id: targetId })
    .where('followers_count', '>', 0)
    .decrement('followers_count', 1)
}

export type FollowOutcome = 'followed' | 'requested' | 'updated'

export interface FollowCeiling {
  threshold: number
  ratio: number
}

/** Mastodon's FollowLimitValidator: the threshold, or once past it, followers × ratio if that is larger. */
export function followLimit(ceiling: FollowCeiling, following: number, followers: number): number {
  if (following < ceiling.threshold) return ceiling.threshold
  return Math.max(Math.round(followers * ceiling.ratio), ceiling.threshold)
}

/** Refuses a new follow or request (422) when the actor already follows as many accounts as it may. */
async function checkFollowLimit(trx: Knex, actorId: string, ceiling: FollowCeiling) {
  // Locking the actor's row makes two follows at once by the same account count one after the other.
  const counts = await trx('accounts')
    .where({ id: actorId })
    .forUpdate()
    .first('following_count', 'followers_count')
  const limit = followLimit(ceiling, counts.following_count, counts.followers_count)
  if (counts.following_count >= limit)
    throw new Invalid(`Validation failed: You cannot follow more than ${limit} people`)
}

/**
 * Mastodon's FollowService: updates an existing follow or request with the options given, else (within the
 * follow ceiling) follows an unlocked local account at once, or asks a locked one. A remote account is always
 * asked: its server answers the Follow with an Accept or a Reject (docs/federation.md, "Follows across servers").
 */
export async function follow(
  trx: Knex,
  actor: AccountRow,
  target: AccountRow,
  options: FollowOptions,
  ceiling: FollowCeiling,
): Promise<FollowOutcome> {
  if (actor.id === target.id) throw new Forbidden('Following your own account is not allowed')
  if (target.suspended_at) throw new NotFound()
  if (await blockedEitherWay(trx, actor.id, target.id)) throw new Forbidden()
  const key = { account_id: actor.id, target_account_id: target.id }
  const changes = optionColumns(options)
  for (const table of ['follows', 'follow_requests']) {
    if (await trx(table).where(key).first('id')) {
      if (Object.keys(changes).length) await trx(table).where(key).update(changes)
      return 'updated'
    }
  }
  await checkFollowLimit(trx, actor.id, ceiling)
  if (target.locked || actor.silenced_at || target.domain) {
    // A concurrent request for the same pair wins the race; this one then changes nothing.
    const [row] = await trx('follow_requests')
      .insert({ ...key, ...changes })
      .onConflict(['account_id', 'target_account_id'])
      .ignore()
      .returning('id')
    if (!row) return 'updated'
    await outbox.add(trx, {
      event: 'follow_request.created',
      followRequestId: row.id,
      accountId: actor.id,
      targetAccountId: target.id,
    })
    return 'requested'
  }
  await createFollow(trx, actor.id, target.id, options)
  return 'followed'
}

/** Removes a follow or withdraws a pending request; nothing to remove is fine. */
export async function unfollow(trx: Knex, accountId: string, targetId: string, fed: Federated = {}) {
  await deleteFollow(trx, accountId, targetId, fed)
  await deleteFollowRequest(trx, accountId, targetId, 'withdrawn', fed)
}

/** Removes a pending follow request, saying why: the requester withdrew it, or the target decided. */
export async function deleteFollowRequest(
  trx: Knex,
  accountId: string,
  targetId: string,
  outcome: 'withdrawn' | 'authorized' | 'rejected',
  fed: Federated = {},
) {
  const [removed] = await trx('follow_requests')
    .where({ account_id: accountId, target_account_id: targetId })
    .delete()
    .returning(['id', 'uri'])
  if (!removed) return
  await outbox.add(trx, {
    event: `follow_request.${outcome}`,
    followRequestId: removed.id,
    accountId,
    targetAccountId: targetId,
    ...federatedFacts(fed, removed.uri),
  })
}

/**
 * Turns a pending request into a follow with the request's options (no follow ceiling: the target agreed). The
 * requester's lists that took the target while the request was pending now hold them through the follow
 * (Mastodon's FollowRequest#authorize!); the worker merges them into those lists' feeds on `follow.created`.
 */
export async function acceptFollowRequest(trx: Knex, request: FollowRequestRow, fed: Federated = {}) {
  await createFollow(
    trx,
    request.account_id,
    request.target_account_id,
    { reblogs: request.show_reblogs, notify: request.notify, languages: request.languages },
    { ...fed, uri: request.uri },
  )
  const follow = await trx('follows')
    .where({ account_id: request.account_id, target_account_id: request.target_account_id })
    .first('id')
  await trx('list_accounts')
    .where({ follow_request_id: request.id })
    .update({ follow_request_id: null, follow_id: follow.id })
  await deleteFollowRequest(trx, request.account_id, request.target_account_id, 'authorized', fed)
}

/**
 * Ends follows and requests both ways, then blocks. Blocking yourself does nothing. A block from another server
 * (`fed.fromPeer`) ends the follows without telling it: its Block says the same.
 */
export async function block(trx: Knex, accountId: string, targetId: string, fed: Federated = {}) {
  if (accountId === targetId) return
  await unfollow(trx, accountId, targetId, { fromPeer: fed.fromPeer })
  await unfollow(trx, targetId, accountId, { fromPeer: fed.fromPeer })
  const [row] = await trx('blocks')
    .insert({ account_id: accountId, target_account_id: targetId, ...(fed.uri ? { uri: fed.uri } : {}) })
    .onConflict(['account_id', 'target_account_id'])
    .ignore()
    .returning('id')
  if (row)
    await outbox.add(trx, {
      event: 'block.created',
      blockId: row.id,
      accountId,
      targetAccountId: targetId,
      ...federatedFacts(fed),
    })
}

export async function unblock(trx: Knex, accountId: string, targetId: string, fed: Federated = {}) {
  const [removed] = await trx('blocks')
    .where({ account_id: accountId, target_account_id: targetId })
    .delete()
    .returning(['id', 'uri'])
  if (removed)
    await outbox.add(trx, {
      event: 'block.removed',
      blockId: removed.id,
      accountId,
      targetAccountId: targetId,
      ...federatedFacts(fed, removed.uri),
    })
}

/** Mutes (or updates a mute); `durationSeconds` 0 means until unmuted. Muting yourself does nothing. */
export async function mute(
  trx: Knex,
  accountId: string,
  targetId: string,
  hideNotifications: boolean,
  durationSeconds: number,
) {
  if (accountId === targetId) return
  const expiresAt = durationSeconds > 0 ? new Date(Date.now() + durationSeconds * 1000) : null
  const [row] = await trx('mutes')
    .insert({
      account_id: accountId,
      target_account_id: targetId,
      hide_notifications: hideNotifications,
      expires_at: expiresAt,
    })
    .onConflict(['account_id', 'target_account_id'])
    .merge(['hide_notifications', 'expires_at'])
    .returning('id')
  await outbox.add(trx, { event: 'mute.created', muteId: row.id, accountId, targetAccountId: targetId })
}

export async function unmute(trx: Knex, accountId: string, targetId: string) {
  const [removed] = await trx('mutes')
    .where({ account_id: accountId, target_account_id: targetId })
    .delete()
    .returning('id')
  if (removed)
    await outbox.add(trx, { event: 'mute.removed', muteId: removed.id, accountId, targetAccountId: targetId })
}
