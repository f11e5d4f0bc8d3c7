import type { Request, Response } from 'express'
import type { AccountsContext } from '../../context'
import { instanceFacts, VERSION } from '../v2/instance'

/** GET /api/v1/instance — the deprecated V1::Instance shape, still read by older clients. */
export async function instanceV1(ctx: AccountsContext, _req: Request, res: Response) {
  const f = await instanceFacts(ctx)
  const { config } = ctx
  res.set('Cache-Control', 'public, max-age=300')
  res.json({
    uri: f.domain,
    title: config.INSTANCE_TITLE,
    short_description: config.INSTANCE_DESCRIPTION,
    description: config.INSTANCE_DESCRIPTION,
    email: config.INSTANCE_CONTACT_EMAIL,
    version: VERSION,
    urls: { streaming_api: f.streaming },
    stats: { user_count: f.userCount, status_count: f.statusCount, domain_count: 0 },
    thumbnail: null,
    languages: ['en'],
    registrations: f.registrationsEnabled,
    approval_required: f.approvalRequired,
    invites_enabled: false,
    configuration: {
      accounts: { max_featured_tags: f.accounts.max_featured_tags },
      statuses: f.statuses,
      media_attachments: f.mediaAttachments,
      polls: f.polls,
    },
    contact_account: f.contactAccount,
    rules: f.rules,
  })
}
