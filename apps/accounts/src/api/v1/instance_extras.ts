import type { Request, Response } from 'express'
import type { AccountsContext } from '../../context'
import { notFound } from '@roost/service'
import { activeRules, renderRule } from '../../domain/rules'
import { domainDigest, publicDomain } from '../../federation/domain-blocks'
import type { DomainBlockRow } from '../../db/rows'
import { optionalUser } from '../../users/current'
import { readSettings, settingUpdatedAt } from '../../domain/server_settings'
import { textToHtml } from '../../text/html'

/** GET /api/v1/instance/rules — public and cacheable even with a token, as Mastodon's. */
export async function instanceRules(ctx: AccountsContext, _req: Request, res: Response) {
  res.set('Cache-Control', 'public, max-age=300')
  res.json((await activeRules(ctx.db)).map(renderRule))
}

/**
 * GET /api/v1/instance/extended_description — the admins' setting (docs/moderation.md, "Server settings"), its
 * paragraphs as HTML, and when it was last changed; `{updated_at: null, content: ""}` when never set, as Mastodon.
 */
export async function extendedDescription(ctx: AccountsContext, _req: Request, res: Response) {
  const { settings } = await readSettings(ctx.db, ctx.config)
  const updatedAt = await settingUpdatedAt(ctx.db, 'site_extended_description')
  res.set('Cache-Control', 'public, max-age=300')
  res.json({
    updated_at: updatedAt ? new Date(updatedAt).toISOString() : null,
    content: settings.site_extended_description ? textToHtml(settings.site_extended_description) : '',
  })
}

/** GET /api/v1/instance/translation_languages — Roost translates nothing (`configuration.translation.enabled: false`). */
export function translationLanguages(_ctx: AccountsContext, _req: Request, res: Response) {
  res.set('Cache-Control', 'public, max-age=300')
  res.json({})
}

/**
 * GET /api/v1/instance/domain_blocks — the moderated servers, as Mastodon shows them: only when SHOW_DOMAIN_BLOCKS
 * is `all`, or `users` and the caller is signed in (else 404); silenced and suspended ones (not `noop`), silenced
 * first, then by domain; obfuscated domains starred out with their SHA-256 `digest`; the public comment only as
 * SHOW_DOMAIN_BLOCKS_RATIONALE allows.
 */
export async function instanceDomainBlocks(ctx: AccountsContext, req: Request, res: Response) {
  const signedIn = async () => (await optionalUser(ctx, req)) !== undefined
  const shown = (setting: 'disabled' | 'users' | 'all') =>
    setting === 'all' ? true : setting === 'users' ? signedIn() : false
  if (!(await shown(ctx.config.SHOW_DOMAIN_BLOCKS))) throw notFound()
  const withComment = await shown(ctx.config.SHOW_DOMAIN_BLOCKS_RATIONALE)
  const rows = await ctx
    .db<DomainBlockRow>('domain_blocks')
    .whereIn('severity', ['silence', 'suspend'])
    .orderByRaw("(CASE severity WHEN 'silence' THEN 1 ELSE 2 END), domain")
  res.set('Cache-Control', 'public, max-age=180')
  res.json(
    rows.map((row) => ({
      domain: publicDomain(row),
      digest: domainDigest(row.domain),
      severity: row.severity,
      comment: withComment ? row.public_comment : null,
    })),
  )
}
