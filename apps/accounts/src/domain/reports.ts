import type { Knex } from '@roost/db'
import { roleKeysWith } from './roles'
import { Invalid, NotFound } from '@roost/errors'
import * as outbox from '../outbox/outbox'
import { normaliseDomain } from './account_extras'
import { mailStaff } from './mail'
import { parseId } from './records'
import type { ReportRow } from '../db/rows'

export interface NewReport {
  statusIds?: string[]
  ruleIds?: string[]
  comment?: string
  category?: ReportRow['category']
  /** Send the report on to the target's server (a remote target only): Mastodon's `forward`. */
  forward?: boolean
  /**
   * Which other servers get it too: those of the accounts the reported posts replied to, among these domains
   * (default: the target's own). Mastodon's `forward_to_domains`.
   */
  forwardToDomains?: string[]
}

/** At most this many `forward_to_domains`. */
const MAX_FORWARD_DOMAINS = 100

/**
 * A domain as an account's `domain` holds it (lower case, with a port when not the default one), or undefined when
 * `value` is not one.
 */
function accountDomain(value: string): string | undefined {
  const [, host, port] = /^(.*?)(:\d{1,5})?$/.exec(value.trim())!
  const normalised = normaliseDomain(host!)
  return normalised && normalised + (port ?? '')
}

/** The domains a report is forwarded to, normalised; a domain that is not one is a 422, never dropped. */
function forwardDomains(given: string[] | undefined, targetDomain: string): string[] {
  if (!given?.length) return [targetDomain.toLowerCase()]
  if (given.length > MAX_FORWARD_DOMAINS)
    throw new Invalid(`Validation failed: Forward to domains can name at most ${MAX_FORWARD_DOMAINS} domains`)
  const domains = given.map(accountDomain)
  if (domains.some((d) => !d)) throw new Invalid('Validation failed: Forward to domains is invalid')
  return [...new Set(domains as string[])]
}

/**
 * Mastodon's ReportService, in the caller's transaction: the reported statuses must be the target's (else 404, as
 * Mastodon's `find`), the rules must exist (and are kept only for a `violation`, which naming rules implies when
 * no category is given). Records `report.created`: the accounts worker notifies the moderators (`admin.report`)
 * and, when the report is `forwarded` (asked for, on a remote account), sends it on as a Flag (docs/federation.md,
 * "Reports across servers").
 */
export async function createReport(trx: Knex, reporterId: string, targetId: string, r: NewReport) {
  const statusIds = [...new Set(r.statusIds ?? [])].map(parseId)
  if (statusIds.some((id) => !id)) throw new NotFound()
  if (statusIds.length) {
    const found: string[] = await trx('statuses')
      .whereIn('id', statusIds as string[])
      .where({ account_id: targetId })
      .pluck('id')
    if (found.length !== statusIds.length) throw new NotFound()
  }
  const target: { domain: string | null } | undefined = await trx('accounts')
    .where({ id: targetId })
    .first('domain')
  if (!target) throw new NotFound()
  const forwarded = !!(r.forward && target.domain)
  const forwardToDomains = forwarded ? forwardDomains(r.forwardToDomains, target.domain!) : undefined
  const category = r.category ?? (r.ruleIds?.length ? 'violation' : 'other')
  let ruleIds: string[] | null = null
  if (category === 'violation') {
    ruleIds = [...new Set(r.ruleIds ?? [])]
    const valid = ruleIds.every((id) => parseId(id))
    const found =
      valid && ruleIds.length
        ? await trx('rules').whereIn('id', ruleIds).whereNull('deleted_at').pluck('id')
        : []
    if (!valid || found.length !== ruleIds.length)
      throw new Invalid('Validation failed: Rule ids does not reference valid rules')
  }
  const [row] = await trx('reports')
    .insert({
      account_id: reporterId,
      target_account_id: targetId,
      status_ids: statusIds,
      rule_ids: ruleIds,
      comment: r.comment ?? '',
      category,
      forwarded,
    })
    .returning('*')
  await outbox.add(trx, {
    event: 'report.created',
    reportId: row.id,
    accountId: reporterId,
    targetAccountId: targetId,
    ...(forwardToDomains ? { forwardToDomains } : {}),
  })
  // And a mail to each moderator and admin (Mastodon's AdminMailer#new_report), never to the reported account.
  await mailStaff(
    trx,
    (recipientUserId) => ({ event: 'mail.admin_report', recipientUserId, reportId: row.id }),
    targetId,
  )
  return row as ReportRow
}

/** The accounts told of a new report: moderators and admins who can sign in, but not the reported account. */
export const staffToNotify = (trx: Knex, report: { target_account_id: string }): Promise<string[]> =>
  trx('users')
    .join('accounts', 'accounts.id', 'users.account_id')
    .whereIn('users.role', roleKeysWith(trx, 'manage_reports'))
    .where({ 'users.disabled': false })
    .whereNull('accounts.suspended_at')
    .whereNot('accounts.id', report.target_account_id)
    .orderBy('accounts.id')
    .pluck('accounts.id')
