import type { Request, Response } from 'express'
import type { AccountsContext } from '../../context'
import { requireUser } from '../../users/current'

/**
 * GET /api/v1/preferences — every key, always. Roost keeps the posting defaults (set through
 * update_credentials' `source[…]`); the reading preferences are Mastodon's defaults, which Roost does not store.
 * The default language falls back to the user's locale, as Mastodon's `preferred_posting_language`.
 */
export async function preferences(ctx: AccountsContext, req: Request, res: Response) {
  const { user } = await requireUser(ctx, req)
  res.json({
    'posting:default:visibility': user.default_privacy,
    'posting:default:sensitive': user.default_sensitive,
    'posting:default:language': user.default_language || user.locale || null,
    'posting:default:quote_policy': user.default_quote_policy ?? 'public',
    'reading:expand:media': 'default',
    'reading:expand:spoilers': false,
    'reading:autoplay:gifs': false,
  })
}
