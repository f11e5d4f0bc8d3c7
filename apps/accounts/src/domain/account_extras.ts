import { domainToASCII } from 'node:url'
import type { Knex } from '@roost/db'
import { Invalid } from '@roost/errors'
import { deleteFollowRequest, domainCovered, follows, unfollow } from './relationships'

/**
 * Account extras (docs/discovery.md): a private note on an account, endorsements (Mastodon's AccountPin) and a
 * user's own domain blocks. Each takes the transaction it runs in.
 */

/** Sets the viewer's note on `targetId`; a blank comment removes it (Mastodon's AccountNote). */
export async function setAccountNote(trx: Knex, accountId: string, targetId: string, comment: string) {
  if (!comment.trim()) {
    await trx('account_notes').where({ account_id: accountId, target_account_id: targetId }).delete()
    return
  }
  await trx('account_notes')
    .insert({ account_id: accountId, target_account_id: targetId, comment })
    .onConflict(['account_id', 'target_account_id'])
    .merge({ comment, updated_at: trx.fn.now() })
}

/** Endorses an account the viewer follows (idempotent); else 422 as Mastodon's AccountPin validation. */
export async function endorse(trx: Knex, accountId: string, targetId: string) {
  if (!(await follows(trx, accountId, targetId)))
    throw new Invalid('Validation failed: You must be already following the person you want to endorse')
  await trx('account_pins')
    .insert({ account_id: accountId, target_account_id: targetId })
    .onConflict(['account_id', 'target_account_id'])
    .ignore()
}

/** Takes an endorsement back (also done when the follow ends, as Mastodon's Follow removes its endorsement). */
export async function unendorse(trx: Knex, accountId: string, targetId: string) {
  await trx('account_pins').where({ account_id: accountId, target_account_id: targetId }).delete()
}

/**
 * A domain as Mastodon normalises it: trimmed, lower-case, punycode, without a scheme, path or port; undefined when
 * it is not a host name.
 */
export function normaliseDomain(value: string): string | undefined {
  let host = value.trim().toLowerCase()
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(host)) {
    try {
      host = new URL(host).hostname
    } catch {
      return undefined
    }
  }
  const ascii = domainToASCII(host.replace(/\.$/, ''))
  if (!ascii || ascii.length > 253) return undefined
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
  const labels = ascii.split('.')
  return labels.length >= 1 && labels.every((l) => label.test(l)) ? ascii : undefined
}

/**
 * Blocks a whole domain for the user (idempotent), as Mastodon's BlockDomainFromAccountService: the follows both
 * ways between the user and that domain's accounts end (their servers hear an `Undo` or a `Reject`), and its
 * accounts are kept out of the user's listings and notifications from then on (`hiddenAccounts`, `notifyAll`).
 */
export async function blockDomain(trx: Knex, accountId: string, domain: string | undefined) {
  if (!domain?.trim()) throw new Invalid("Validation failed: Domain can't be blank")
  const normalised = normaliseDomain(domain)
  if (!normalised) throw new Invalid('Validation failed: Domain is not a valid domain name')
  await trx('account_domain_blocks')
    .insert({ account_id: accountId, domain: normalised })
    .onConflict(['account_id', 'domain'])
    .ignore()
  const onDomain = trx('accounts')
    .crossJoin(trx.raw('(SELECT ?::text AS domain) AS block', [normalised]))
    .whereRaw(domainCovered('block.domain', 'accounts.domain'))
    .select('accounts.id')
  const followed: string[] = await trx('follows')
    .where({ account_id: accountId })
    .whereIn('target_account_id', onDomain.clone())
    .pluck('target_account_id')
  const following: string[] = await trx('follows')
    .where({ target_account_id: accountId })
    .whereIn('account_id', onDomain.clone())
    .pluck('account_id')
  const requesting: string[] = await trx('follow_requests')
    .where({ target_account_id: accountId })
    .whereIn('account_id', onDomain.clone())
    .pluck('account_id')
  for (const id of followed) await unfollow(trx, accountId, id)
  for (const id of following) await unfollow(trx, id, accountId)
  for (const id of requesting) await deleteFollowRequest(trx, id, accountId, 'rejected')
}

/** Lifts a user's domain block; nothing happens when there was none. */
export async function unblockDomain(trx: Knex, accountId: string, domain: string | undefined) {
  const normalised = domain ? normaliseDomain(domain) : undefined
  if (!normalised) return
  await trx('account_domain_blocks').where({ account_id: accountId, domain: normalised }).delete()
}
