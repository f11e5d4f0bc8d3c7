import type { AccountRow, StatusRow } from '../../db/rows'
import type { Federation } from '../transport/client'
import type { Deliver } from '../transport/delivery-queue'
import { remoteFollowers } from '../audience'
import { ldSignatureOf, ldSignatureVerifies } from './ld-signatures'

/**
 * Mastodon's `forward_for_reply` (docs/federation.md, "Forwarded activities"): a public or unlisted reply to a
 * local post, whose Create carries its author's Linked Data signature, goes as it came (the signature intact) to
 * the remote followers of the local post's author, signed over HTTP by that author, except to the reply author's
 * own server. Their servers see the reply although its author does not know them, and can check that it is
 * the author's. A signature that does not verify is not forwarded.
 */
export async function forwardReply(
  fed: Federation,
  deliver: Deliver,
  author: AccountRow,
  status: StatusRow,
  original: Record<string, unknown>,
) {
  if (status.visibility !== 'public' && status.visibility !== 'unlisted') return
  if (!status.in_reply_to_id || !ldSignatureOf(original) || !author.public_key) return
  const parent = await fed
    .db('statuses')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where('statuses.id', status.in_reply_to_id)
    .whereNull('accounts.domain')
    .first('statuses.account_id')
  if (!parent) return
  const recipients = (await remoteFollowers(fed.db, parent.account_id)).filter(
    (a) => a.domain !== author.domain,
  )
  if (!recipients.length) return
  if (!(await ldSignatureVerifies(original, author.public_key).catch(() => false))) return
  await deliver(original, parent.account_id, recipients, `forward-reply-${status.id}`)
}
