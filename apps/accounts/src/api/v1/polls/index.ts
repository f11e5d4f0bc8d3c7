import type { Request, Response } from 'express'
import { readParams, voteParams } from '@roost/routes'
import { forbidden, notFound, paramMissing } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { PollRow } from '../../../db/rows'
import { vote } from '../../../domain/polls'
import { parseId } from '../../../domain/records'
import { blockedEitherWay } from '../../../domain/relationships'
import { findVisibleStatus } from '../../../domain/statuses'
import { urlsOf } from '../../../entities/account'
import { pollEmojis, renderPoll } from '../../../entities/poll'
import { optionalUser, requireUser } from '../../../users/current'

/** A poll whose status the viewer can see; anything else is 404, as in Mastodon. */
async function visiblePoll(ctx: AccountsContext, id: unknown, viewerId?: string): Promise<PollRow> {
  const pollId = parseId(id)
  const poll: PollRow | undefined = pollId ? await ctx.db('polls').where({ id: pollId }).first() : undefined
  if (!poll) throw notFound()
  await findVisibleStatus(ctx.db, poll.status_id, viewerId, notFound)
  return poll
}

async function answer(ctx: AccountsContext, res: Response, pollId: string, viewerId?: string) {
  const poll: PollRow = await ctx.db('polls').where({ id: pollId }).first()
  const own: number[] = viewerId
    ? await ctx
        .db('poll_votes')
        .where({ poll_id: pollId, account_id: viewerId })
        .orderBy('id')
        .pluck('choice')
    : []
  res.json(renderPoll(poll, viewerId, own, await pollEmojis(ctx.db, poll, urlsOf(ctx.config))))
}

/** GET /api/v1/polls/:id */
export async function getPoll(ctx: AccountsContext, req: Request, res: Response) {
  const viewerId = (await optionalUser(ctx, req))?.account.id
  const poll = await visiblePoll(ctx, req.params.id, viewerId)
  await answer(ctx, res, poll.id, viewerId)
}

/**
 * POST /api/v1/polls/:id/votes — `choices[]` are option indexes (missing → 400). Someone who blocks the poll's
 * author, or is blocked by them, may not vote (403).
 */
export async function votePoll(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const poll = await visiblePoll(ctx, req.params.id, account.id)
  const choices = readParams(req, voteParams).choices ?? []
  if (!choices.length) throw paramMissing('choices')
  if (await blockedEitherWay(ctx.db, account.id, poll.account_id)) throw forbidden()
  await ctx.db.transaction((trx) =>
    vote(
      trx,
      poll.id,
      account.id,
      choices.map((c) => (/^\d{1,9}$/.test(c) ? Number(c) : -1)),
    ),
  )
  await answer(ctx, res, poll.id, account.id)
}
