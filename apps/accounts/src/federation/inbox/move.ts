import type { AccountRow } from '../../db/rows'
import { moveAccount } from '../../domain/moves'
import type { Federation } from '../transport/client'
import { resolveActor } from '../remote-accounts'
import { idOf } from './statuses'
import { localAccountOf } from './process'

/**
 * Mastodon's ActivityPub::Activity::Move (docs/federation.md, "Moved accounts"): the signer moves itself (`object`
 * is the signer) to `target`, fetched again, which must name the signer in its `alsoKnownAs`. Then the signer is
 * marked as moved and its followers here follow the target (domain/moves.ts). Anything else (another account's
 * Move, a target without the alias, a suspended or unreachable target) changes nothing. A Move already handled
 * (the signer is marked as moved to that target) is not done again. A target on this server (a remote account moving
 * here) is our own account, read from the database rather than fetched as if it were another server's.
 */
export async function move(fed: Federation, signer: AccountRow, activity: Record<string, unknown>) {
  if (idOf(activity.object) !== signer.uri) return
  const targetUri = idOf(activity.target)
  if (!targetUri || targetUri === signer.uri) return
  let target: AccountRow | undefined
  try {
    target = (await localAccountOf(fed, targetUri)) ?? (await resolveActor(fed, targetUri, { refresh: true }))
  } catch (err) {
    fed.logger.info({ err, actor: signer.uri, target: targetUri }, 'Move: target could not be fetched')
    return
  }
  if (target.suspended_at || !(target.also_known_as ?? []).includes(signer.uri!)) {
    fed.logger.info({ actor: signer.uri, target: targetUri }, 'Move refused: the target has no such alias')
    return
  }
  const fresh: AccountRow | undefined = await fed.db('accounts').where({ id: signer.id }).first()
  if (!fresh || fresh.moved_to_account_id === target.id) return
  await moveAccount(fed.db, fed.urls, fresh, target)
}
