import { createHash, sign, verify } from 'node:crypto'
import { canonize } from './jsonld'

/**
 * Linked Data signatures (`RsaSignature2017`) as Mastodon makes and checks them (docs/federation.md, "Forwarded
 * activities"): the signature is the author's RSA-SHA256 over the hex SHA-256 of the canonical (URDNA2015) options
 * (`creator`, `created`, in the identity context) followed by that of the canonical document without its
 * `signature`. It lets an activity be forwarded or relayed by another server and still be known to be its
 * author's.
 */

export const SIGNATURE_TYPE = 'RsaSignature2017'
const IDENTITY_CONTEXT = 'https://w3id.org/identity/v1'

type Doc = Record<string, unknown>

export interface LdSignature {
  type: string
  creator: string
  created?: string
  signatureValue: string
}

/** The document's `signature` when it is an RsaSignature2017 with a creator and a value; otherwise undefined. */
export function ldSignatureOf(doc: Doc): LdSignature | undefined {
  const s = doc.signature
  if (!s || typeof s !== 'object' || Array.isArray(s)) return undefined
  const { type, creator, signatureValue } = s as Record<string, unknown>
  if (type !== SIGNATURE_TYPE || typeof creator !== 'string' || typeof signatureValue !== 'string')
    return undefined
  return s as LdSignature
}

const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex')

async function toBeSigned(doc: Doc, options: Record<string, unknown>) {
  const { type: _t, id: _i, signatureValue: _v, ...rest } = options
  const { signature: _s, ...document } = doc
  return (
    sha256hex(await canonize({ ...rest, '@context': IDENTITY_CONTEXT })) + sha256hex(await canonize(document))
  )
}

/** The document signed by `creator` (the key id, `<actor>#main-key`) with its PEM private key. */
export async function signLd(doc: Doc, creator: string, privateKey: string, now = new Date()): Promise<Doc> {
  const options = { type: SIGNATURE_TYPE, creator, created: now.toISOString().replace(/\.\d{3}Z$/, 'Z') }
  const value = sign('sha256', Buffer.from(await toBeSigned(doc, options)), privateKey).toString('base64')
  return { ...doc, signature: { ...options, signatureValue: value } }
}

/**
 * Whether the document's LD signature was made with `publicKey` (PEM). A context Roost does not ship, or a
 * document JSON-LD cannot read, is a no (UnknownContextError and jsonld's errors are caught by the caller).
 */
export async function ldSignatureVerifies(doc: Doc, publicKey: string): Promise<boolean> {
  const signature = ldSignatureOf(doc)
  if (!signature) return false
  const data = Buffer.from(await toBeSigned(doc, signature as unknown as Record<string, unknown>))
  try {
    return verify('sha256', data, publicKey, Buffer.from(signature.signatureValue, 'base64'))
  } catch {
    return false
  }
}
