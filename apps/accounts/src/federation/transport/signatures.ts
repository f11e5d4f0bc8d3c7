import { constants, createHash, createPublicKey, sign, verify } from 'node:crypto'
import type { Algorithm } from './message-signatures'
import { checkMessageSignature, MessageSignatureError } from './message-signatures'

/**
 * HTTP Signatures as Mastodon speaks them (draft-cavage-http-signatures, rsa-sha256; docs/federation.md, "HTTP
 * signatures"): every request Roost sends to a peer is signed with the acting account's key, and every inbox POST
 * (and, in authorized-fetch mode, every GET of an actor or object) must carry a valid signature.
 *
 * This module holds what needs no network: the signing of outgoing requests, and the checks of an incoming one
 * up to the point where the key is needed (parameters, algorithm, date window, signed headers, body digest). A
 * request carrying `Signature-Input` is an RFC 9421 message signature (message-signatures.ts), as Mastodon tells
 * them apart; any other is draft-cavage.
 */

export const REQUEST_TARGET = '(request-target)'
/** Mastodon's window: a signature lives 5 minutes past its date (at most 12 hours), give or take an hour of skew. */
const DEFAULT_EXPIRY_MS = 5 * 60_000
const EXPIRATION_WINDOW_LIMIT_MS = 12 * 3600_000
const CLOCK_SKEW_MARGIN_MS = 3600_000

/** `SHA-256=<base64>` of a body (RFC 3230), as the `Digest` header carries it. */
export const digestOf = (body: Buffer | string) =>
  `SHA-256=${createHash('sha256').update(body).digest('base64')}`

export interface OutgoingRequest {
  method: string
  url: URL
  /** The body of a POST, exactly as it will be sent. */
  body?: Buffer | string
  /** The signing key's id (`<actor>#main-key`) and its PEM private key. */
  keyId: string
  privateKey: string
  now?: Date
}

/**
 * The headers that sign a request: `Host`, `Date`, `Digest` (with a body) and `Signature` over
 * `(request-target) host date [digest]`, as Mastodon's Request signs them.
 */
export function signRequest(r: OutgoingRequest): Record<string, string> {
  const headers: Record<string, string> = {
    [REQUEST_TARGET]: `${r.method.toLowerCase()} ${r.url.pathname}${r.url.search}`,
    host: r.url.host,
    date: (r.now ?? new Date()).toUTCString(),
  }
  if (r.body !== undefined) headers.digest = digestOf(r.body)
  const names = Object.keys(headers)
  const signingString = names.map((name) => `${name}: ${headers[name]}`).join('\n')
  const signature = sign('sha256', Buffer.from(signingString), r.privateKey).toString('base64')
  const out: Record<string, string> = {
    Host: headers.host!,
    Date: headers.date!,
    Signature: `keyId="${r.keyId}",algorithm="rsa-sha256",headers="${names.join(' ')}",signature="${signature}"`,
  }
  if (headers.digest) out.Digest = headers.digest
  return out
}

/** A refused signature; `message` is what the 401 says, in Mastodon's words. */
export class SignatureError extends Error {}

/**
 * The parameters of a `Signature` header (`keyId="…",algorithm="…",…`): tokens or quoted strings, as Mastodon's
 * parser reads them, tolerating the stray `Signature ` prefix old node-http-signature versions add. Undefined
 * when it cannot be read.
 */
export function parseSignatureHeader(value: string): Record<string, string> | undefined {
  const params: Record<string, string> = {}
  let rest = value.trim().replace(/^Signature\s+/, '')
  const param =
    /^([0-9a-zA-Z!#$%&'*+.^_`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([0-9a-zA-Z!#$%&'*+.^_`|~-]+))\s*/
  while (rest) {
    const m = param.exec(rest)
    if (!m) return undefined
    params[m[1]!] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!
    rest = rest.slice(m[0].length)
    if (!rest) break
    if (rest[0] !== ',') return undefined
    rest = rest.slice(1).trimStart()
  }
  return Object.keys(params).length ? params : undefined
}

export interface IncomingRequest {
  method: string
  /** Path and query as received. */
  url: string
  /** Lower-cased header names, as node gives them. */
  headers: Record<string, string | string[] | undefined>
  /** The raw body of a POST (what `Digest` covers). */
  body?: Buffer
  /** The origins the request may have been addressed to (RFC 9421's `@target-uri`); PUBLIC_URL's first. */
  origins?: string[]
}

export type SignatureScheme = 'draft-cavage' | 'rfc9421'

export interface CheckedSignature {
  scheme: SignatureScheme
  keyId: string
  /** The strings the signature may have been made over: with the query (the draft) and without (Mastodon's). */
  signingStrings: string[]
  signature: Buffer
  /** RFC 9421's `alg`, when the signer named one. */
  alg?: Algorithm
}

const header = (r: IncomingRequest, name: string) => {
  const value = r.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

/**
 * Everything Mastodon's SignatureVerification checks before it needs the key: the header parses, names a key and
 * carries a signature; the algorithm is rsa-sha256 or hs2019; the date is within the window; the signed headers
 * are strong enough (date, and request-target or digest; host on a GET; digest on a POST); and the body matches
 * the digest. Throws SignatureError with Mastodon's message.
 */
export function checkSignedRequest(r: IncomingRequest, now = new Date()): CheckedSignature {
  if (header(r, 'signature-input') !== undefined) {
    try {
      return { scheme: 'rfc9421', ...checkMessageSignature({ ...r, origins: r.origins ?? [] }, now) }
    } catch (err) {
      if (err instanceof MessageSignatureError) throw new SignatureError(err.message)
      throw err
    }
  }
  const raw = header(r, 'signature')
  if (!raw) throw new SignatureError('Request not signed')
  const params = parseSignatureHeader(raw)
  if (!params) throw new SignatureError('Error parsing signature parameters')
  if (!params.keyId || !params.signature)
    throw new SignatureError('Incompatible request signature. keyId and signature are required')
  const algorithm = params.algorithm ?? 'hs2019'
  if (algorithm !== 'rsa-sha256' && algorithm !== 'hs2019')
    throw new SignatureError('Unsupported signature algorithm (only rsa-sha256 and hs2019 are supported)')
  const signed = (params.headers ?? (algorithm === 'hs2019' ? '(created)' : 'date'))
    .toLowerCase()
    .split(/\s+/)

  if (!withinWindow(r, params, algorithm, now))
    throw new SignatureError('Signed request date outside acceptable time window')

  if (!signed.includes('date') && !signed.includes('(created)'))
    throw new SignatureError('Mastodon requires the Date header or (created) pseudo-header to be signed')
  if (!signed.includes(REQUEST_TARGET) && !signed.includes('digest'))
    throw new SignatureError(
      'Mastodon requires the Digest header or (request-target) pseudo-header to be signed',
    )
  const method = r.method.toUpperCase()
  if (method === 'GET' && !signed.includes('host'))
    throw new SignatureError('Mastodon requires the Host header to be signed when doing a GET request')
  if (method === 'POST' && !signed.includes('digest'))
    throw new SignatureError('Mastodon requires the Digest header to be signed when doing a POST request')

  if (signed.includes('digest')) checkDigest(r)

  const build = (target: string) =>
    signed
      .map((name) => {
        if (name === REQUEST_TARGET) return `${REQUEST_TARGET}: ${r.method.toLowerCase()} ${target}`
        if (name === '(created)' || name === '(expires)') {
          if (algorithm !== 'hs2019') throw new SignatureError(`Invalid pseudo-header ${name} for rsa-sha256`)
          const value = params[name.slice(1, -1)]
          if (!value)
            throw new SignatureError(`Pseudo-header ${name} used but corresponding argument missing`)
          return `${name}: ${value}`
        }
        return `${name}: ${header(r, name) ?? ''}`
      })
      .join('\n')
  const path = r.url.split('?')[0]!
  const signingStrings = [...new Set([build(r.url), build(path)])]
  return {
    scheme: 'draft-cavage',
    keyId: params.keyId,
    signingStrings,
    signature: Buffer.from(params.signature, 'base64'),
  }
}

function withinWindow(r: IncomingRequest, params: Record<string, string>, algorithm: string, now: Date) {
  let created: number | undefined
  if (algorithm === 'hs2019' && params.created) created = Number(params.created) * 1000
  else {
    const date = header(r, 'date')
    if (date) {
      created = Date.parse(date)
      if (Number.isNaN(created)) throw new SignatureError(`Invalid Date header: ${date}`)
    }
  }
  let expires = params.expires ? Number(params.expires) * 1000 : undefined
  if (created !== undefined) {
    expires ??= created + DEFAULT_EXPIRY_MS
    expires = Math.min(expires, created + EXPIRATION_WINDOW_LIMIT_MS)
  }
  if (created !== undefined && (Number.isNaN(created) || created > now.getTime() + CLOCK_SKEW_MARGIN_MS))
    return false
  if (expires !== undefined && (Number.isNaN(expires) || now.getTime() > expires + CLOCK_SKEW_MARGIN_MS))
    return false
  return true
}

function checkDigest(r: IncomingRequest) {
  const value = header(r, 'digest')
  if (!value) throw new SignatureError('Digest header missing')
  const digests = value.split(',').map((d) => {
    const at = d.indexOf('=')
    return [d.slice(0, at).trim().toLowerCase(), d.slice(at + 1).trim()] as const
  })
  const sha256 = digests.find(([algorithm]) => algorithm === 'sha-256')
  if (!sha256)
    throw new SignatureError(
      `Mastodon only supports SHA-256 in Digest header. Offered algorithms: ${digests.map(([a]) => a).join(', ')}`,
    )
  const computed = digestOf(r.body ?? Buffer.alloc(0)).slice('SHA-256='.length)
  if (computed === sha256[1]) return
  const given = sha256[1]
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(given) || given.length % 4 !== 0)
    throw new SignatureError(
      `Invalid Digest value. The provided Digest value is not a valid base64 string. Given digest: ${given}`,
    )
  if (Buffer.from(given, 'base64').length !== 32)
    throw new SignatureError(
      `Invalid Digest value. The provided Digest value is not a SHA-256 digest. Given digest: ${given}`,
    )
  throw new SignatureError(`Invalid Digest value. Computed SHA-256 digest: ${computed}; given: ${given}`)
}

/**
 * Whether `publicKey` (PEM) made the signature over one of the signing strings; a bad key, or a key of another
 * kind than the algorithm named (RFC 9421's `alg`), is a no. RSA keys verify RSASSA-PKCS1-v1_5 with SHA-256 (both
 * schemes) or, when named, RSASSA-PSS with SHA-512; Ed25519 keys verify Ed25519.
 */
export function verifiedBy(publicKey: string, checked: CheckedSignature): boolean {
  let key
  try {
    key = createPublicKey(publicKey)
  } catch {
    return false
  }
  const type = key.asymmetricKeyType
  const alg = checked.alg ?? (type === 'ed25519' ? 'ed25519' : 'rsa-v1_5-sha256')
  if ((alg === 'ed25519') !== (type === 'ed25519') || (type !== 'rsa' && type !== 'ed25519')) return false
  return checked.signingStrings.some((s) => {
    try {
      if (alg === 'ed25519') return verify(null, Buffer.from(s), key, checked.signature)
      if (alg === 'rsa-pss-sha512')
        return verify(
          'sha512',
          Buffer.from(s),
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 },
          checked.signature,
        )
      return verify('sha256', Buffer.from(s), key, checked.signature)
    } catch {
      return false
    }
  })
}
