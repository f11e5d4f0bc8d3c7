import type { Request, Response } from 'express'
import type { AccountsContext } from '../../context'
import { urlsOf } from '../../entities/account'
import { visibleLocalAccounts } from '../../queries/accounts'
import { readSettings } from '../../domain/server_settings'

/** Roost's own version, as NodeInfo reports it (the API version clients see is in /api/v2/instance). */
export const ROOST_VERSION = '0.1.0'
const SCHEMA_2_0 = 'http://nodeinfo.diaspora.software/ns/schema/2.0'

/** GET /.well-known/nodeinfo: where the NodeInfo documents are (Mastodon serves 2.0 only). */
export function nodeinfoLinks(ctx: AccountsContext, _req: Request, res: Response) {
  res.set('Cache-Control', 'max-age=259200, public')
  res.json({ links: [{ rel: SCHEMA_2_0, href: `${urlsOf(ctx.config).base}/nodeinfo/2.0` }] })
}

const DAY_MS = 24 * 3600 * 1000

/**
 * GET /nodeinfo/2.0 (docs/federation.md, "Discovery"): software `roost`, the counts Mastodon reports (local users
 * who can sign in, those seen in the last 30 and 180 days, local posts) and whether anyone may sign up. Cached
 * 30 minutes, as Mastodon's.
 */
export async function nodeinfo(ctx: AccountsContext, _req: Request, res: Response) {
  const users = () => visibleLocalAccounts(ctx.db).clearSelect().whereNull('accounts.suspended_at')
  const activeSince = async (days: number) => {
    const [{ count }] = await users()
      .where('users.current_sign_in_at', '>', new Date(Date.now() - days * DAY_MS))
      .count<{ count: string }[]>('* as count')
    return Number(count)
  }
  const [{ count: total }] = await users().count<{ count: string }[]>('* as count')
  const [{ sum: posts }] = await users().sum<{ sum: string | null }[]>('accounts.statuses_count as sum')
  const { settings } = await readSettings(ctx.db, ctx.config)
  res.set('Cache-Control', 'max-age=1800, public')
  res.json({
    version: '2.0',
    software: { name: 'roost', version: ROOST_VERSION },
    protocols: ctx.config.FEDERATION ? ['activitypub'] : [],
    services: { outbound: [], inbound: [] },
    usage: {
      users: {
        total: Number(total),
        activeMonth: await activeSince(30),
        activeHalfyear: await activeSince(180),
      },
      localPosts: Number(posts ?? 0),
    },
    openRegistrations: settings.registrations_mode !== 'none',
    metadata: { nodeName: settings.site_title, nodeDescription: settings.site_short_description },
  })
}
