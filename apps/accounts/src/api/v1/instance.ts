import type { Request, Response } from 'express'
import type { AccountsContext } from '../../context'
import { instanceFacts, VERSION } from '../v2/instance'

/** GET /api/v1/instance — the deprecated V1::Instance shape, still read by older clients. */
export async function instanceV1(ctx: AccountsContext, _req: Request, res: Response) {
  const f = await instanceFacts(ctx)
  res.set('Cache-Control', 'public, max-age=300')
  res.json({
    uri: f.domain,
    title: f.settings.site_title,
    short_description: f.settings.site_short_description,
    description: f.settings.site_short_description,
    email: f.settings.site_contact_email,
    version: VERSION,
    urls: { streaming_api: f.streaming },
    stats: { user_count: f.userCount, status_count: f.statusCount, domain_count: 0 },
    thumbnail: null,
    languages: f.settings.languages,
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
