import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto'

/**
 * FEP-8b32 object integrity proofs (docs/federation.md, "Forwarded activities"): a `proof` of type
 * `DataIntegrityProof` with the `eddsa-jcs-2022` cryptosuite, made with the author's Ed25519 key (an
 * `assertionMethod` Multikey of its actor), verified as the W3C's vc-di-eddsa says and as Mastodon's
 * ActivityPub::ObjectIntegrityProof does: Ed25519 over SHA-256(JCS(proof options)) ‖ SHA-256(JCS(document)).
 */

type Doc = Record<string, unknown>

/** RFC 8785 JSON canonicalization: keys sorted by UTF-16 code units, ECMAScript number and string forms. */
export function jcs(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('JCS: a number that is not finite')
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map((v) => jcs(v === undefined ? null : v)).join(',')}]`
  if (typeof value === 'object') {
    const entries = Object.entries(value as Doc)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${jcs(v)}`).join(',')}}`
  }
  throw new Error(`JCS: cannot canonicalize a ${typeof value}`)
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

export function base58btcEncode(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`)
  let out = ''
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out
    n /= 58n
  }
  for (const b of bytes) {
    if (b !== 0) break
    out = `1${out}`
  }
  return out
}

export function base58btcDecode(s: string): Buffer | undefined {
  let n = 0n
  for (const c of s) {
    const i = ALPHABET.indexOf(c)
    if (i < 0) return undefined
    n = n * 58n + BigInt(i)
  }
  const hex = n === 0n ? '' : n.toString(16)
  const body = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex')
  let zeros = 0
  while (s[zeros] === '1') zeros++
  return Buffer.concat([Buffer.alloc(zeros), body])
}

/** The multicodec prefix of an Ed25519 public key in a Multikey (`0xed 0x01`). */
const ED25519_PUB = Buffer.from([0xed, 0x01])
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex')

/** An Ed25519 public key from a Multikey's `publicKeyMultibase` (`z` + base58btc); undefined if it is not one. */
export function ed25519FromMultibase(multibase: string) {
  if (!multibase.startsWith('z')) return undefined
  const bytes = base58btcDecode(multibase.slice(1))
  if (!bytes || bytes.length !== 34 || !bytes.subarray(0, 2).equals(ED25519_PUB)) return undefined
  return createPublicKey({
    key: Buffer.concat([SPKI_ED25519, bytes.subarray(2)]),
    format: 'der',
    type: 'spki',
  })
}

/** `publicKeyMultibase` of an Ed25519 public key (PEM or KeyObject). */
export function multibaseOf(publicKey: string | ReturnType<typeof createPublicKey>) {
  const der = createPublicKey(publicKey).export({ format: 'der', type: 'spki' })
  return `z${base58btcEncode(Buffer.concat([ED25519_PUB, der.subarray(der.length - 32)]))}`
}

export interface Proof {
  type: 'DataIntegrityProof'
  cryptosuite: 'eddsa-jcs-2022'
  verificationMethod: string
  proofPurpose: string
  proofValue: string
  created?: string
  '@context'?: unknown
}

/** The document's `proof` when it is one Roost checks (a single eddsa-jcs-2022 assertion proof); else undefined. */
export function proofOf(doc: Doc): Proof | undefined {
  const p = doc.proof
  if (!p || typeof p !== 'object' || Array.isArray(p)) return undefined
  const proof = p as Record<string, unknown>
  if (
    proof.type !== 'DataIntegrityProof' ||
    proof.cryptosuite !== 'eddsa-jcs-2022' ||
    typeof proof.verificationMethod !== 'string' ||
    proof.proofPurpose !== 'assertionMethod' ||
    typeof proof.proofValue !== 'string'
  )
    return undefined
  return proof as unknown as Proof
}

const asList = (v: unknown) => (v === undefined ? [] : Array.isArray(v) ? v : [v])

function hashData(doc: Doc, options: Doc) {
  return Buffer.concat([
    createHash('sha256').update(jcs(options)).digest(),
    createHash('sha256').update(jcs(doc)).digest(),
  ])
}

/**
 * Whether the document's proof was made by `publicKey` (an Ed25519 KeyObject), as vc-di-eddsa verifies it. Proof
 * options without an `@context` are also tried with the document's, which the proof configuration takes from the
 * document when it is made (as Fedify leaves it out of the proof it attaches).
 */
export function proofVerifies(doc: Doc, publicKey: ReturnType<typeof createPublicKey>): boolean {
  const proof = proofOf(doc)
  if (!proof) return false
  const { proof: _p, ...unsecured } = doc
  const { proofValue, ...options } = proof
  const value = proofValue.startsWith('z') ? base58btcDecode(proofValue.slice(1)) : undefined
  if (!value || value.length !== 64) return false
  const candidates: Doc[] = [options as Doc]
  if (options['@context'] !== undefined) {
    // The proof's context must begin the document's.
    const mine = asList(options['@context'])
    const theirs = asList(unsecured['@context'])
    if (mine.some((c, i) => JSON.stringify(c) !== JSON.stringify(theirs[i]))) return false
  } else if (unsecured['@context'] !== undefined)
    candidates.push({ '@context': unsecured['@context'], ...options })
  return candidates.some((candidate) => {
    try {
      return verify(null, hashData(unsecured, candidate), publicKey, value)
    } catch {
      return false
    }
  })
}

/** The document with an eddsa-jcs-2022 proof by `verificationMethod`'s Ed25519 private key (PEM). */
export function signProof(doc: Doc, verificationMethod: string, privateKey: string, now = new Date()): Doc {
  const options: Doc = {
    type: 'DataIntegrityProof',
    cryptosuite: 'eddsa-jcs-2022',
    verificationMethod,
    proofPurpose: 'assertionMethod',
    created: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(doc['@context'] !== undefined ? { '@context': doc['@context'] } : {}),
  }
  const { proof: _p, ...unsecured } = doc
  const value = sign(null, hashData(unsecured, options), createPrivateKey(privateKey))
  return { ...unsecured, proof: { ...options, proofValue: `z${base58btcEncode(value)}` } }
}
