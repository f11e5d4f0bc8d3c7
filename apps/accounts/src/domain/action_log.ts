import type { Knex } from '@roost/db'

/**
 * The audit log (docs/moderation.md, "Audit log"), as Mastodon's Admin::ActionLog: every moderation and admin
 * action records who did it, what (Mastodon's verbs: `create`, `update`, `destroy`, `suspend`, `resolve`…), on
 * what (`targetType` as Mastodon names its models: Account, User, Report, DomainBlock, DomainAllow, IpBlock,
 * EmailDomainBlock, CanonicalEmailBlock, CustomEmoji, UserRole, Rule, Announcement, Webhook, Setting…) and when.
 * Written in the transaction of the action itself, so a log line exists exactly when the action happened.
 */
export interface LoggedAction {
  /** The staff account that acted (null for the command line). */
  accountId: string | null
  action: string
  targetType: string
  targetId: string | null
  /** The target's name as it was then (an acct, a domain, a range, a shortcode…): it may change or go later. */
  humanIdentifier?: string | null
  details?: Record<string, unknown>
}

export async function logAction(trx: Knex, entry: LoggedAction): Promise<void> {
  await trx('admin_action_logs').insert({
    account_id: entry.accountId,
    action: entry.action,
    target_type: entry.targetType,
    target_id: entry.targetId,
    human_identifier: entry.humanIdentifier ?? null,
    details: entry.details ? JSON.stringify(entry.details) : null,
  })
}
