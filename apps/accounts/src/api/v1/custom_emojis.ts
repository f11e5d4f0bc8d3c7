import type { Request, Response } from 'express'
import type { AccountsContext } from '../../context'
import type { CustomEmojiRow } from '../../db/rows'
import { urlsOf } from '../../entities/account'
import { renderCustomEmoji } from '../../entities/custom_emoji'

/**
 * GET /api/v1/custom_emojis — Mastodon's CustomEmojisController: the local emojis that are enabled and shown in
 * pickers (`CustomEmoji.listed`), public and cached three minutes by anyone (docs/emoji.md).
 */
export async function customEmojis(ctx: AccountsContext, _req: Request, res: Response) {
  const rows: CustomEmojiRow[] = await ctx
    .db('custom_emojis')
    .whereNull('domain')
    .where({ disabled: false, visible_in_picker: true })
    .whereNot({ file: '' })
    .orderBy('shortcode')
  const urls = urlsOf(ctx.config)
  res.set('Cache-Control', 'max-age=180, public')
  res.json(rows.map((r) => renderCustomEmoji(r, urls)))
}
