import { createHash, createPrivateKey, sign } from 'node:crypto'
import type { Item, InnerList } from './structured-fields'
import {
  isInnerList,
  parseDictionary,
  serializeInnerList,
  serializeItem,
  StructuredFieldError,
} from './structured-fields'

/**
 * HTTP Message Signatures (RFC 9421) as Mastodon 4.5 speaks them (docs/federation.md, "HTTP signatures"): a
 * `Signature-Input` naming the covered components and the parameters, a `Signature` carrying the bytes, and a
 * `Content-Digest` (RFC 9530) of the body. Roost signs `@method`, `@target-uri` and, with a body,
 * `content-digest`, with `created` and `keyid` (the actor's RSA key, RSASSA-PKCS1-v1_5 with SHA-256, the only
 * algorithm Mastodon's keys allow); it checks what Mastodon's SignedRequest::HttpMessageSignature checks, in its
 * words. Only node:crypto: RSA and Ed25519 both work on Node 20.
 */

export const LABEL = 'sig1'
export const ALGORITHMS = ['rsa-v1_5-sha256', 'rsa-pss-sha512', 'ed25519'] as const
export type Algorithm = (typeof ALGORITHMS)[number]

/** `sha-256=:<base64>:` of a body (RFC 9530), as the `Content-Digest` header carries it. */
export const contentDigestOf = (body: Buffer | string) =>
  `sha-256=:${createHash('sha256').update(body).digest('base64')}:`

/** A signature that cannot be accepted; `message` is what the 401 says, in Mastodon's words. */
export class MessageSignatureError extends Error {}

export interface MessageToSign {
  method: string
  url: URL
  body?: Buffer | string
  keyId: string
  privateKey: string
  now?: Date
}

/**
 * The headers that sign a request by RFC 9421: `Content-Digest` (with a body), `Signature-Input` over
 * `("@method" "@target-uri" ["content-digest"]);created=…;keyid="…"` and `Signature` (label `sig1`), plus the
 * `Date` every request carries.
 */
export function signMessage(r: MessageToSign): Record<string, string> {
  const now = r.now ?? new Date()
  const headers: Record<string, string> = { Date: now.toUTCString() }
  const components: [string, string][] = [
    ['@method', r.method.toUpperCase()],
    ['@target-uri', r.url.href],
  ]
  if (r.body !== undefined) {
    headers['Content-Digest'] = contentDigestOf(r.body)
    components.push(['content-digest', headers['Content-Digest']])
  }
  const params = `(${components.map(([name]) => `"${name}"`).join(' ')});created=${Math.floor(now.getTime() / 1000)};keyid="${r.keyId.replace(/[\\"]/g, (c) => `\\${c}`)}"`
  const base = [
    ...components.map(([name, value]) => `"${name}": ${value}`),
    `"@signature-params": ${params}`,
  ].join('\n')
  const key = r.privateKey
  const signature = sign(isEd25519Pem(key) ? null : 'sha256', Buffer.from(base), key).toString('base64')
  headers['Signature-Input'] = `${LABEL}=${params}`
  headers.Signature = `${LABEL}=:${signature}:`
  return headers
}

const isEd25519Pem = (pem: string) => {
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'ed25519'
  } catch {
    return false
  }
}

export interface IncomingMessage {
  method: string
  /** Path and query as received. */
  url: string
  /** Lower-cased header names, as node gives them. */
  headers: Record<string, string | string[] | undefined>
  body?: Buffer
  /** The origins (`https://host`) the request may have been addressed to, for `@target-uri` and `@authority`. */
  origins: string[]
}

export interface CheckedMessageSignature {
  keyId: string
  /** The signature bases, one per origin the request may have been addressed to. */
  signingStrings: string[]
  signature: Buffer
  /** The `alg` parameter when given; otherwise the key decides (RSA: rsa-v1_5-sha256). */
  alg?: Algorithm
}

const EXPIRATION_WINDOW_LIMIT_MS = 12 * 3600_000
const CLOCK_SKEW_MARGIN_MS = 3600_000
const DEFAULT_EXPIRY_MS = 5 * 60_000

const header = (r: IncomingMessage, name: string) => {
  const value = r.headers[name]
  if (value === undefined) return undefined
  return (Array.isArray(value) ? value : [value]).map((v) => v.trim()).join(', ')
}

/**
 * Everything Mastodon checks of an RFC 9421 signature before it needs the key: the two headers parse and name
 * the same label (the first one, as Mastodon takes a single signature), `keyid` and `created` are there, the
 * date is within the window, `@method` and `@target-uri` are covered (and `content-digest` on a POST), and the
 * body matches its digest. Throws MessageSignatureError.
 */
export function checkMessageSignature(r: IncomingMessage, now = new Date()): CheckedMessageSignature {
  let inputs, signatures
  try {
    inputs = parseDictionary(header(r, 'signature-input') ?? '')
    signatures = parseDictionary(header(r, 'signature') ?? '')
  } catch (err) {
    if (err instanceof StructuredFieldError)
      throw new MessageSignatureError('Error parsing signature parameters')
    throw err
  }
  const label = [...inputs.keys()].find((l) => signatures.has(l))
  if (!label) throw new MessageSignatureError('Error parsing signature parameters')
  const input = inputs.get(label)!
  const sig = signatures.get(label)!
  if (!isInnerList(input) || isInnerList(sig) || !(sig.value instanceof Uint8Array))
    throw new MessageSignatureError('Error parsing signature parameters')
  const params = new Map(input.params)
  const keyId = params.get('keyid')
  const created = params.get('created')
  if (typeof keyId !== 'string' || !keyId || typeof created !== 'number')
    throw new MessageSignatureError('Incompatible request signature. keyid and created are required')
  const alg = params.get('alg')
  if (alg !== undefined && !ALGORITHMS.includes(alg as Algorithm))
    throw new MessageSignatureError(`Unsupported signature algorithm ${String(alg)}`)

  const expiresParam = params.get('expires')
  const createdMs = created * 1000
  let expires = typeof expiresParam === 'number' ? expiresParam * 1000 : createdMs + DEFAULT_EXPIRY_MS
  expires = Math.min(expires, createdMs + EXPIRATION_WINDOW_LIMIT_MS)
  if (createdMs > now.getTime() + CLOCK_SKEW_MARGIN_MS || now.getTime() > expires + CLOCK_SKEW_MARGIN_MS)
    throw new MessageSignatureError('Signed request date outside acceptable time window')

  const components = input.items
  const names = components.map((c) => (typeof c.value === 'string' ? c.value : ''))
  if (!names.includes('@method') || !names.includes('@target-uri'))
    throw new MessageSignatureError(
      'Mastodon requires the @method and @target-uri derived components to be signed',
    )
  if (r.method.toUpperCase() === 'POST' && !names.includes('content-digest'))
    throw new MessageSignatureError(
      'Mastodon requires the Content-Digest header to be signed when doing a POST request',
    )
  if (names.includes('content-digest')) checkContentDigest(r)

  const signingStrings = [...new Set(r.origins)].map((origin) => signatureBase(r, origin, components, input))
  return {
    keyId,
    signingStrings: [...new Set(signingStrings)],
    signature: Buffer.from(sig.value),
    ...(alg ? { alg: alg as Algorithm } : {}),
  }
}

/** The signature base (RFC 9421 §2.5) of the request as addressed to `origin`. */
function signatureBase(r: IncomingMessage, origin: string, components: Item[], input: InnerList) {
  const target = new URL(r.url, origin)
  const lines = components.map((c) => {
    if (typeof c.value !== 'string' || c.params.length)
      throw new MessageSignatureError(`Unsupported covered component ${serializeItem(c)}`)
    return `${serializeItem(c)}: ${componentValue(r, target, c.value)}`
  })
  lines.push(`"@signature-params": ${serializeInnerList(input)}`)
  return lines.join('\n')
}

function componentValue(r: IncomingMessage, target: URL, name: string): string {
  switch (name) {
    case '@method':
      return r.method.toUpperCase()
    case '@target-uri':
      return target.href
    case '@authority':
      return target.host.toLowerCase()
    case '@scheme':
      return target.protocol.slice(0, -1).toLowerCase()
    case '@request-target':
      return `${target.pathname}${target.search}`
    case '@path':
      return target.pathname
    case '@query':
      return target.search || '?'
    default: {
      if (name.startsWith('@')) throw new MessageSignatureError(`Unsupported derived component ${name}`)
      const value = header(r, name)
      if (value === undefined)
        throw new MessageSignatureError(`Missing header ${name} covered by the signature`)
      return value
    }
  }
}

function checkContentDigest(r: IncomingMessage) {
  const value = header(r, 'content-digest')
  if (value === undefined) throw new MessageSignatureError('Content-Digest header missing')
  let digests
  try {
    digests = parseDictionary(value)
  } catch {
    throw new MessageSignatureError(
      'Content-Digest could not be parsed. It does not contain a valid RFC8941 dictionary.',
    )
  }
  const sha256 = digests.get('sha-256')
  if (!sha256)
    throw new MessageSignatureError(
      `Mastodon only supports SHA-256 in Content-Digest header. Offered algorithms: ${[...digests.keys()].join(', ')}`,
    )
  const given =
    !isInnerList(sha256) && sha256.value instanceof Uint8Array ? Buffer.from(sha256.value) : undefined
  const computed = createHash('sha256')
    .update(r.body ?? Buffer.alloc(0))
    .digest()
  if (given && given.equals(computed)) return
  throw new MessageSignatureError(
    `Invalid Digest value. Computed SHA-256 digest: ${computed.toString('base64')}; given: ${given?.toString('base64') ?? ''}`,
  )
}
