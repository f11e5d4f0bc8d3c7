import type { Request, Response } from 'express'
import { NotFound } from '@roost/errors'
import type { AccountsContext } from '../../context'
import type { CustomEmojiRow } from '../../db/rows'
import { parseId } from '../../domain/records'
import { urlsOf } from '../../entities/account'
import { AS } from '../../federation/render/contexts'
import { emojiTag } from '../../federation/render/emoji'
import { sendActivityJson } from './activity-json'

/**
 * GET /emojis/:id: a local custom emoji as the ActivityPub object its `Emoji` tags name (Mastodon's EmojisController
 * with ActivityPub::EmojiSerializer; docs/emoji.md): any local emoji, disabled ones too, as Mastodon's
 * `CustomEmoji.local.find`; another server's emoji or an unknown id is a 404. Cached three minutes, as Mastodon's.
 */
export async function emojiDocument(ctx: AccountsContext, req: Request, res: Response) {
  if (!ctx.config.FEDERATION) throw new NotFound()
  const id = parseId(req.params.id)
  const emoji: CustomEmojiRow | undefined = id
    ? await ctx.db('custom_emojis').where({ id }).whereNull('domain').first()
    : undefined
  if (!emoji?.file) throw new NotFound()
  const context = [AS, { toot: 'http://joinmastodon.org/ns#', Emoji: 'toot:Emoji' }]
  sendActivityJson(
    res,
    { '@context': context, ...emojiTag(urlsOf(ctx.config), emoji) },
    { maxAge: 180, shared: true },
  )
}
