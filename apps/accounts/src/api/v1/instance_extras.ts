import type { Request, Response } from 'express'
import type { AccountsContext } from '../../context'
import { activeRules, renderRule } from '../../domain/rules'

/** GET /api/v1/instance/rules — public and cacheable even with a token, as Mastodon's. */
export async function instanceRules(ctx: AccountsContext, _req: Request, res: Response) {
  res.set('Cache-Control', 'public, max-age=300')
  res.json((await activeRules(ctx.db)).map(renderRule))
}

/**
 * GET /api/v1/instance/extended_description — Roost has no extended description setting: Mastodon's answer when
 * none is set.
 */
export function extendedDescription(_ctx: AccountsContext, _req: Request, res: Response) {
  res.set('Cache-Control', 'public, max-age=300')
  res.json({ updated_at: null, content: '' })
}

/** GET /api/v1/instance/translation_languages — Roost translates nothing (`configuration.translation.enabled: false`). */
export function translationLanguages(_ctx: AccountsContext, _req: Request, res: Response) {
  res.set('Cache-Control', 'public, max-age=300')
  res.json({})
}
