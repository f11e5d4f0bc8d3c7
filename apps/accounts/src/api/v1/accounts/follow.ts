import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { followParams, muteParams, readParams } from '@roost/routes'
import { unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { findAccount } from '../../../domain/records'
import * as relationships from '../../../domain/relationships'
import type { AccountRow } from '../../../db/rows'
import { renderRelationship } from '../../../entities/relationship'
import { requireUser } from '../../../users/current'

const ISO_639_1 = /^[a-z]{2}$/

/** Runs `change` in a transaction between the signed-in account and `:id`, then answers the Relationship. */
const action =
  (
    change: (
      ctx: AccountsContext,
      trx: Knex,
      actor: AccountRow,
      target: AccountRow,
      req: Request,
    ) => Promise<unknown>,
  ) =>
  async (ctx: AccountsContext, req: Request, res: Response) => {
    const { account } = await requireUser(ctx, req)
    const target = await findAccount(ctx.db, req.params.id)
    await ctx.db.transaction((trx) => change(ctx, trx, account, target, req))
    res.json(await renderRelationship(ctx.db, account.id, target.id))
  }

/** POST /api/v1/accounts/:id/follow — params reblogs, notify, languages[]; only the ones given change a follow. */
export const follow = action(async (ctx, trx, actor, target, req) => {
  const p = readParams(req, followParams)
  const languages = p.languages
  if (languages?.some((l) => !ISO_639_1.test(l)))
    throw unprocessable('Validation failed: Languages contains invalid language codes')
  await relationships.follow(
    trx,
    actor,
    target,
    {
      reblogs: p.reblogs,
      notify: p.notify,
      languages: languages === undefined ? undefined : languages.length ? languages : null,
    },
    { threshold: ctx.config.MAX_FOLLOWS_THRESHOLD, ratio: ctx.config.MAX_FOLLOWS_RATIO },
  )
})

/** POST /api/v1/accounts/:id/unfollow — also withdraws a pending request. */
export const unfollow = action((_ctx, trx, actor, target) => relationships.unfollow(trx, actor.id, target.id))

/** POST /api/v1/accounts/:id/remove_from_followers */
export const removeFromFollowers = action((_ctx, trx, actor, target) =>
  relationships.deleteFollow(trx, target.id, actor.id),
)

/** POST /api/v1/accounts/:id/block */
export const block = action((_ctx, trx, actor, target) => relationships.block(trx, actor.id, target.id))

/** POST /api/v1/accounts/:id/unblock */
export const unblock = action((_ctx, trx, actor, target) => relationships.unblock(trx, actor.id, target.id))

/** POST /api/v1/accounts/:id/mute — `notifications` (default true), `duration` in seconds (0: until unmuted). */
export const mute = action(async (_ctx, trx, actor, target, req) => {
  const p = readParams(req, muteParams)
  const duration = p.duration ?? 0
  if (duration < 0) throw unprocessable('Validation failed: Duration must be greater than or equal to 0')
  await relationships.mute(trx, actor.id, target.id, p.notifications ?? true, duration)
})

/** POST /api/v1/accounts/:id/unmute */
export const unmute = action((_ctx, trx, actor, target) => relationships.unmute(trx, actor.id, target.id))
