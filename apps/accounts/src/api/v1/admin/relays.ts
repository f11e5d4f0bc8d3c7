import { randomUUID } from 'node:crypto'
import type { Request, Response } from 'express'
import { adminRelayParams, readParams } from '@roost/routes'
import { recordNotFound, unprocessable } from '@roost/service'
import type { Knex } from '@roost/db'
import type { AccountsContext } from '../../../context'
import type { RelayRow } from '../../../db/rows'
import { parseId } from '../../../domain/records'
import { urlsOf } from '../../../entities/account'
import * as outbox from '../../../outbox/outbox'
import { isUrlBlocked } from '../../../federation/domain-blocks'
import { PUBLIC, relayEntity } from '../../../federation/relays'
import { instanceActorUri } from '../../../federation/uris'
import { logAction } from '../../../domain/action_log'
import { requirePermission } from '../../../users/roles'

/**
 * Relays, a Roost addition (Mastodon manages them in its web admin only, Admin::RelaysController; docs/federation.md,
 * "Relays"): admins list, add, enable, disable and remove them. Adding enables at once, as Mastodon. The Follow and
 * its Undo go out from the worker (`relay.enabled`, `relay.disabled`), written in the transaction of the change.
 */

const invalid = (message: string) => unprocessable(`Validation failed: ${message}`)

/** Each change goes in the audit log (docs/moderation.md), in the change's own transaction. */
const logged = (trx: Knex, accountId: string, action: string, relay: RelayRow) =>
  logAction(trx, {
    accountId,
    action,
    targetType: 'Relay',
    targetId: String(relay.id),
    humanIdentifier: relay.inbox_url,
  })

async function findRelay(db: Knex, id: unknown): Promise<RelayRow> {
  const relayId = parseId(id)
  const row = relayId ? await db<RelayRow>('relays').where({ id: relayId }).first() : undefined
  if (!row) throw recordNotFound()
  return row
}

/** Enables (again): a new Follow id, `pending` until the relay answers. */
async function enable(ctx: AccountsContext, trx: Knex.Transaction, row: RelayRow) {
  const followId = `${instanceActorUri(urlsOf(ctx.config))}#relay-follows/${row.id}/${randomUUID()}`
  const [updated] = await trx<RelayRow>('relays')
    .where({ id: row.id })
    .update({ state: 'pending', follow_activity_id: followId, updated_at: trx.fn.now() as unknown as Date })
    .returning('*')
  await outbox.add(trx, { event: 'relay.enabled', relayId: row.id })
  return updated!
}

/** Disables: `idle`, and the Undo of the Follow sent if there was one. */
async function disable(trx: Knex.Transaction, row: RelayRow) {
  if (row.follow_activity_id && row.state !== 'idle')
    await outbox.add(trx, {
      event: 'relay.disabled',
      relayId: row.id,
      inbox: row.delivery_inbox ?? row.inbox_url,
      followActivityId: row.follow_activity_id,
      object:
        row.delivery_inbox && row.actor_uri && row.delivery_inbox !== row.inbox_url ? row.actor_uri : PUBLIC,
    })
  const [updated] = await trx<RelayRow>('relays')
    .where({ id: row.id })
    .update({ state: 'idle', updated_at: trx.fn.now() as unknown as Date })
    .returning('*')
  return updated!
}

/** GET /api/v1/admin/relays — every relay, oldest first (there are a handful). */
export async function listRelays(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const rows = await ctx.db<RelayRow>('relays').orderBy('id')
  res.json(rows.map(relayEntity))
}

/**
 * POST /api/v1/admin/relays — `inbox_url`: an https URL (http only where FEDERATION_ALLOW_HTTP), not on a suspended
 * server, not added already (422 otherwise, as Mastodon's validations); the relay is enabled at once.
 */
export async function createRelay(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const p = readParams(req, adminRelayParams)
  const given = p.inbox_url?.trim()
  if (!given) throw invalid("Inbox URL can't be blank")
  let url: URL
  try {
    url = new URL(given)
  } catch {
    throw invalid('Inbox URL is invalid')
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && ctx.config.FEDERATION_ALLOW_HTTP))
    throw invalid('Inbox URL is invalid')
  if (url.origin === new URL(ctx.config.PUBLIC_URL).origin) throw invalid('Inbox URL is invalid')
  if (await isUrlBlocked(ctx.db, url.href)) throw invalid('Inbox URL is on a suspended server')
  const row = await ctx.db.transaction(async (trx) => {
    const [created] = await trx<RelayRow>('relays')
      .insert({ inbox_url: url.href })
      .onConflict('inbox_url')
      .ignore()
      .returning('*')
    if (!created) throw invalid('Inbox URL has already been taken')
    await logged(trx, staff.account.id, 'create', created)
    return ctx.config.FEDERATION ? enable(ctx, trx, created) : created
  })
  res.json(relayEntity(row))
}

/** POST /api/v1/admin/relays/:id/enable — a relay enabled already is left as it is. */
export async function enableRelay(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const found = await findRelay(ctx.db, req.params.id)
  if (!ctx.config.FEDERATION) throw unprocessable('Federation is off')
  const row = await ctx.db.transaction(async (trx) => {
    const current = await findRelay(trx, found.id)
    await logged(trx, staff.account.id, 'enable', current)
    return current.state === 'pending' || current.state === 'accepted' ? current : enable(ctx, trx, current)
  })
  res.json(relayEntity(row))
}

/** POST /api/v1/admin/relays/:id/disable — sends the Undo; the relay stays listed, `idle`. */
export async function disableRelay(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const found = await findRelay(ctx.db, req.params.id)
  const row = await ctx.db.transaction(async (trx) => {
    const current = await findRelay(trx, found.id)
    await logged(trx, staff.account.id, 'disable', current)
    return disable(trx, current)
  })
  res.json(relayEntity(row))
}

/** DELETE /api/v1/admin/relays/:id — disables (the Undo) and removes; answers `{}`. */
export async function deleteRelay(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const found = await findRelay(ctx.db, req.params.id)
  await ctx.db.transaction(async (trx) => {
    const current = await findRelay(trx, found.id)
    await logged(trx, staff.account.id, 'destroy', current)
    await disable(trx, current)
    await trx('relays').where({ id: found.id }).delete()
  })
  res.json({})
}
