import type { RevocationList } from '@roost/auth'
import type { Knex } from '@roost/db'
import * as outbox from '../outbox/outbox'
import { suspendAccount } from './moderation'

/**
 * A user deletes their own account (docs/security.md, "Leaving"), as Mastodon's /settings/delete: in the caller's
 * transaction the account is suspended (every token revoked, `account.suspended` for push), marked deleted, and
 * `account.deletion_requested` recorded; the accounts worker then removes its data and sends the Delete of the
 * actor (worker/account-data.ts). The account row stays, so the username is never taken again.
 */
export async function requestAccountDeletion(trx: Knex, revocations: RevocationList, accountId: string) {
  await suspendAccount(trx, revocations, accountId)
  await trx('accounts').where({ id: accountId }).whereNull('deleted_at').update({ deleted_at: trx.fn.now() })
  await outbox.add(trx, { event: 'account.deletion_requested', accountId })
}
