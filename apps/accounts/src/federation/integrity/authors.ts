import type { AccountRow } from '../../db/rows'
import type { Federation } from '../transport/client'
import { isDomainBlocked, isUrlBlocked } from '../domain-blocks'
import { idOf } from '../inbox/statuses'
import { resolveActor } from '../remote-accounts'
import { signedPart } from './jsonld'
import { ldSignatureOf, ldSignatureVerifies } from './ld-signatures'
import { ed25519FromMultibase, proofOf, proofVerifies } from './proofs'

/**
 * Who really wrote an activity that another server delivered (docs/federation.md, "Forwarded activities"), as
 * Mastodon's ActivityPub::ProcessCollectionService asks when the actor is not the signer of the request: its
 * Linked Data signature (RsaSignature2017), else its FEP-8b32 integrity proof (eddsa-jcs-2022), made by the
 * activity's actor. Keys are found among known accounts, else fetched with the actor (and fetched once more when
 * a known key no longer verifies: keys rotate). Undefined when neither proves it.
 */

type Doc = Record<string, unknown>

export interface VerifiedActivity {
  author: AccountRow
  /** What the author signed: for an LD signature, the document compacted with its own context (jsonld.ts). */
  activity: Doc
  by: 'ld-signature' | 'integrity-proof'
}

export async function verifiedAuthor(fed: Federation, activity: Doc): Promise<VerifiedActivity | undefined> {
  const actor = idOf(activity.actor)
  if (!actor) return undefined
  const ld = await byLdSignature(fed, activity, actor).catch((err: unknown) => {
    fed.logger.info({ err, actor }, 'LD signature could not be checked')
    return undefined
  })
  if (ld) return ld
  const { signature: _s, ...unsigned } = activity
  return byProof(fed, unsigned, actor).catch((err: unknown) => {
    fed.logger.info({ err, actor }, 'integrity proof could not be checked')
    return undefined
  })
}

async function byLdSignature(
  fed: Federation,
  activity: Doc,
  actor: string,
): Promise<VerifiedActivity | undefined> {
  const signature = ldSignatureOf(activity)
  if (!signature || (await isUrlBlocked(fed.db, signature.creator))) return undefined
  for (const refresh of [false, true]) {
    const owner = await rsaKeyOwner(fed, signature.creator, refresh)
    if (!owner?.public_key || owner.uri !== actor) return undefined
    if (await ldSignatureVerifies(activity, owner.public_key)) {
      if (await isDomainBlocked(fed.db, owner.domain!)) return undefined
      const { signature: _s, ...document } = activity
      return { author: owner, activity: await signedPart(document), by: 'ld-signature' }
    }
  }
  return undefined
}

async function byProof(fed: Federation, activity: Doc, actor: string): Promise<VerifiedActivity | undefined> {
  const proof = proofOf(activity)
  if (!proof || (await isUrlBlocked(fed.db, proof.verificationMethod))) return undefined
  for (const refresh of [false, true]) {
    const found = await assertionKey(fed, proof.verificationMethod, refresh)
    if (!found || found.owner.uri !== actor) return undefined
    const key = ed25519FromMultibase(found.multibase)
    if (key && proofVerifies(activity, key)) {
      if (await isDomainBlocked(fed.db, found.owner.domain!)) return undefined
      const { proof: _p, ...document } = activity
      return { author: found.owner, activity: document, by: 'integrity-proof' }
    }
  }
  return undefined
}

/** The account whose RSA key `keyId` is: known, or fetched (always, when `refresh`). */
async function rsaKeyOwner(fed: Federation, keyId: string, refresh: boolean) {
  if (!refresh) {
    const known: AccountRow | undefined = await fed
      .db('accounts')
      .where({ public_key_id: keyId })
      .whereNotNull('domain')
      .first()
    if (known) return known
  }
  const fetched = await resolveActor(fed, keyId, { refresh: true }).catch(() => undefined)
  return fetched?.public_key_id === keyId ? fetched : undefined
}

/** The account with the Ed25519 assertion key `keyId`, and the key: known, or fetched (always, when `refresh`). */
async function assertionKey(fed: Federation, keyId: string, refresh: boolean) {
  const find = (account: AccountRow | undefined) => {
    const key = account?.assertion_keys?.find((k) => k.id === keyId)
    return account && key ? { owner: account, multibase: key.publicKeyMultibase } : undefined
  }
  if (!refresh) {
    const known: AccountRow | undefined = await fed
      .db('accounts')
      .whereRaw('assertion_keys @> ?::jsonb', [JSON.stringify([{ id: keyId }])])
      .whereNotNull('domain')
      .first()
    if (known) return find(known)
  }
  const actorUri = keyId.split('#')[0]!
  return find(await resolveActor(fed, actorUri, { refresh: true }).catch(() => undefined))
}
