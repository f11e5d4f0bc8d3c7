import type { Request, Response } from 'express'
import { Forbidden, Malformed, NotFound, Unauthenticated } from '@roost/errors'
import type { AccountsContext } from '../../context'
import type { AccountRow } from '../../db/rows'
import * as outbox from '../../outbox/outbox'
import { findLocalAccount } from '../../queries/accounts'
import type { Federation } from '../../federation/transport/client'
import { heardFrom } from '../../federation/transport/delivery-failures'
import { isUrlBlocked } from '../../federation/domain-blocks'
import { idOf, isNoteLike, sameHost } from '../../federation/inbox/statuses'
import { findByUri, resolveActor } from '../../federation/remote-accounts'
import type { CheckedSignature } from '../../federation/transport/signatures'
import { checkSignedRequest, SignatureError, verifiedBy } from '../../federation/transport/signatures'

/**
 * The inboxes (docs/federation.md, "Inboxes"): `POST /inbox` (shared) and `POST /users/:username/inbox`. As
 * Mastodon's InboxesController with its SignatureVerification: the request's HTTP signature is checked (401 with
 * Mastodon's reason otherwise), the signer's key is found among known actors or fetched (and fetched again once
 * when it no longer verifies: keys rotate), and the activity is then queued for the accounts worker and answered
 * 202. Nothing is stored before all of that holds. An activity whose actor is not the signer (forwarded, relayed)
 * is believed by the worker only when its actor signed it (federation/integrity/authors.ts).
 */
export async function inbox(ctx: AccountsContext, req: Request, res: Response) {
  if (!ctx.config.FEDERATION) throw new NotFound()
  if (req.params.username !== undefined && !(await findLocalAccount(ctx.db, String(req.params.username))))
    throw new NotFound()
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
  const checked = signatureOf(ctx, req, body)
  const activity = parseActivity(body)
  // A suspended server is refused before its key is even fetched, as Mastodon's SignatureVerification (403).
  if (await isUrlBlocked(ctx.db, checked.keyId))
    throw new Forbidden(`Public key not found for key ${checked.keyId}`)
  const signer = await signerOf(ctx.federation, checked)
  // An activity of another actor than the signer (forwarded or relayed) is queued too: the worker believes it only
  // when its actor's LD signature or integrity proof verifies (docs/federation.md, "Forwarded activities").
  await ctx.db.transaction(async (trx) => {
    await outbox.add(trx, { event: 'inbox.received', signerAccountId: signer.id, activity })
    await heardFrom(trx, signer.domain!)
  })
  res.status(202).end()
}

/**
 * The origins a request may have been addressed to, for RFC 9421's `@target-uri`: ours (PUBLIC_URL's), never one a
 * header names, so that a signature made for another server's URL cannot be replayed here.
 */
export function requestOrigins(ctx: AccountsContext, _req: Request): string[] {
  return [new URL(ctx.config.PUBLIC_URL).origin]
}

function signatureOf(ctx: AccountsContext, req: Request, body: Buffer): CheckedSignature {
  try {
    return checkSignedRequest({
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
      body,
      origins: requestOrigins(ctx, req),
    })
  } catch (err) {
    if (err instanceof SignatureError) throw new Unauthenticated(err.message, { cause: err })
    throw err
  }
}

function parseActivity(body: Buffer): Record<string, unknown> {
  let json: unknown
  try {
    json = JSON.parse(body.toString('utf8'))
  } catch {
    throw new Malformed('Error parsing JSON')
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new Malformed('The body is not an activity')
  const activity = json as Record<string, unknown>
  if (typeof activity.type !== 'string' || activity.actor === undefined)
    throw new Malformed('The body is not an activity')
  checkObject(activity)
  return activity
}

/**
 * A Create or Update of a status must carry (or name) an object with an id, on its actor's host: a Note claiming
 * another server's id is refused with the malformed ones (400), before anything is stored.
 */
function checkObject(activity: Record<string, unknown>) {
  if (activity.type !== 'Create' && activity.type !== 'Update') return
  const object = activity.object
  const actor = idOf(activity.actor)
  if (typeof object === 'string' || (object && typeof object === 'object' && !Array.isArray(object))) {
    const id = idOf(object)
    if (!id) throw new Malformed('The object has no id')
    if (typeof object === 'object' && typeof (object as { type?: unknown }).type !== 'string')
      throw new Malformed('The object has no type')
    if (isNoteLike(object) || typeof object === 'string') {
      if (!sameHost(id, actor))
        throw new Malformed(`The object ${id} is not on the host of its actor ${actor}`)
      if (isNoteLike(object)) checkNote(object, actor!)
    }
    return
  }
  throw new Malformed('The activity has no object')
}

function checkNote(note: Record<string, unknown>, actor: string) {
  const author = idOf(Array.isArray(note.attributedTo) ? note.attributedTo[0] : note.attributedTo)
  if (author !== actor) throw new Malformed(`The object is not attributed to its actor ${actor}`)
  for (const field of ['content', 'summary'] as const)
    if (note[field] !== undefined && note[field] !== null && typeof note[field] !== 'string')
      throw new Malformed(`The object's ${field} is not a string`)
}

/**
 * The remote account whose key made the signature (Mastodon's `signed_request_actor`): known by its key id, or
 * fetched; a key that does not verify is fetched again once (the actor may have a new key). 401 otherwise.
 */
export async function signerOf(fed: Federation, checked: CheckedSignature): Promise<AccountRow> {
  const keyId = checked.keyId
  let url: URL
  try {
    url = new URL(keyId)
  } catch {
    throw new Unauthenticated(`Unable to fetch key JSON at ${keyId}`)
  }
  const known =
    (await fed.db('accounts').where({ public_key_id: keyId }).whereNotNull('domain').first()) ??
    (await findByUri(fed.db, `${url.origin}${url.pathname}${url.search}`))
  if (known?.public_key && known.public_key_id === keyId && verifiedBy(known.public_key, checked))
    return known
  let fetched: AccountRow
  try {
    fetched = await resolveActor(fed, known?.uri ?? keyId, { refresh: true })
  } catch (err) {
    fed.logger.info({ err, keyId }, 'signature key could not be fetched')
    throw new Unauthenticated(`Unable to fetch key JSON at ${keyId}`, { cause: err })
  }
  if (fetched.public_key_id !== keyId || !fetched.public_key)
    throw new Unauthenticated(`Unable to fetch key JSON at ${keyId}`)
  if (!verifiedBy(fetched.public_key, checked))
    throw new Unauthenticated(
      checked.scheme === 'rfc9421'
        ? `Verification failed for ${fetched.username}@${fetched.domain} ${fetched.uri} using HTTP Message Signatures (RFC 9421)`
        : `Verification failed for ${fetched.username}@${fetched.domain} ${fetched.uri} using rsa-sha256 (RSA-SHA256)`,
    )
  return fetched
}
