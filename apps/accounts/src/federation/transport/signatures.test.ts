import { generateKeyPairSync } from 'node:crypto'
import {
  checkSignedRequest,
  digestOf,
  parseSignatureHeader,
  SignatureError,
  signRequest,
  verifiedBy,
} from './signatures'
import type { IncomingRequest } from './signatures'

const pem = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
const alice = pem()
const mallory = pem()
const keyId = 'https://a.example/users/alice#main-key'
const now = new Date('2026-11-25T12:00:00Z')

/** A signed inbox POST as the receiving server sees it. */
function signedPost(
  body: string,
  options: { privateKey?: string; date?: Date; url?: string } = {},
): IncomingRequest {
  const url = new URL(options.url ?? 'https://b.example/inbox')
  const headers = signRequest({
    method: 'POST',
    url,
    body,
    keyId,
    privateKey: options.privateKey ?? alice.privateKey,
    now: options.date ?? now,
  })
  return {
    method: 'POST',
    url: `${url.pathname}${url.search}`,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    body: Buffer.from(body),
  }
}

const refusal = (r: IncomingRequest, at = now) => {
  try {
    checkSignedRequest(r, at)
  } catch (err) {
    if (err instanceof SignatureError) return err.message
    throw err
  }
  return undefined
}

describe('HTTP signatures (draft-cavage, rsa-sha256)', () => {
  it('signs (request-target) host date digest, and the signature verifies with the public key only', () => {
    const r = signedPost('{"type":"Follow"}')
    expect(r.headers.signature).toMatch(
      /^keyId="https:\/\/a\.example\/users\/alice#main-key",algorithm="rsa-sha256",headers="\(request-target\) host date digest",signature="[A-Za-z0-9+/=]+"$/,
    )
    expect(r.headers.digest).toBe(digestOf('{"type":"Follow"}'))
    expect(r.headers.host).toBe('b.example')
    const checked = checkSignedRequest(r, now)
    expect(checked.keyId).toBe(keyId)
    expect(verifiedBy(alice.publicKey, checked)).toBe(true)
    expect(verifiedBy(mallory.publicKey, checked)).toBe(false)
    expect(verifiedBy('not a key', checked)).toBe(false)
  })

  it('signs a GET without digest but with host, as Mastodon requires', () => {
    const headers = signRequest({
      method: 'GET',
      url: new URL('https://b.example:8443/users/bob'),
      keyId,
      privateKey: alice.privateKey,
      now,
    })
    expect(headers.Host).toBe('b.example:8443')
    expect(headers.Digest).toBeUndefined()
    const checked = checkSignedRequest(
      {
        method: 'GET',
        url: '/users/bob',
        headers: { host: headers.Host, date: headers.Date, signature: headers.Signature },
      },
      now,
    )
    expect(verifiedBy(alice.publicKey, checked)).toBe(true)
  })

  it('refuses a changed body, a wrong or missing Digest, and a forged signature', () => {
    const r = signedPost('{"a":1}')
    expect(refusal({ ...r, body: Buffer.from('{"a":2}') })).toMatch(
      /^Invalid Digest value\. Computed SHA-256 digest: /,
    )
    expect(refusal({ ...r, headers: { ...r.headers, digest: undefined } })).toBe('Digest header missing')
    expect(refusal({ ...r, headers: { ...r.headers, digest: 'MD5=abc' } })).toBe(
      'Mastodon only supports SHA-256 in Digest header. Offered algorithms: md5',
    )
    expect(refusal({ ...r, headers: { ...r.headers, digest: 'SHA-256=!!' } })).toMatch(
      /not a valid base64 string/,
    )
    expect(refusal({ ...r, headers: { ...r.headers, digest: 'SHA-256=AAAA' } })).toMatch(
      /not a SHA-256 digest/,
    )
    // The signature of another key over the same request does not verify with alice's key.
    const forged = signedPost('{"a":1}', { privateKey: mallory.privateKey })
    expect(verifiedBy(alice.publicKey, checkSignedRequest(forged, now))).toBe(false)
    // A header changed after signing (here the path) breaks it.
    expect(verifiedBy(alice.publicKey, checkSignedRequest({ ...r, url: '/users/bob/inbox' }, now))).toBe(
      false,
    )
  })

  it("keeps to Mastodon's date window: 5 minutes plus an hour of skew either way", () => {
    const r = signedPost('{}')
    expect(refusal(r, new Date(now.getTime() + 64 * 60_000))).toBeUndefined()
    expect(refusal(r, new Date(now.getTime() + 66 * 60_000))).toBe(
      'Signed request date outside acceptable time window',
    )
    expect(refusal(r, new Date(now.getTime() - 59 * 60_000))).toBeUndefined()
    expect(refusal(r, new Date(now.getTime() - 61 * 60_000))).toBe(
      'Signed request date outside acceptable time window',
    )
    expect(refusal({ ...r, headers: { ...r.headers, date: 'yesterday' } })).toBe(
      'Invalid Date header: yesterday',
    )
  })

  it("refuses unsigned, unreadable, incomplete and weak signatures with Mastodon's messages", () => {
    const r = signedPost('{}')
    const withSignature = (signature: string | undefined) => ({ ...r, headers: { ...r.headers, signature } })
    expect(refusal(withSignature(undefined))).toBe('Request not signed')
    expect(refusal(withSignature('keyId'))).toBe('Error parsing signature parameters')
    expect(refusal(withSignature('keyId="x"'))).toBe(
      'Incompatible request signature. keyId and signature are required',
    )
    expect(refusal(withSignature('keyId="x",algorithm="rsa-sha512",signature="AA=="'))).toBe(
      'Unsupported signature algorithm (only rsa-sha256 and hs2019 are supported)',
    )
    expect(
      refusal(
        withSignature('keyId="x",algorithm="rsa-sha256",headers="(request-target) host",signature="AA=="'),
      ),
    ).toBe('Mastodon requires the Date header or (created) pseudo-header to be signed')
    expect(
      refusal(withSignature('keyId="x",algorithm="rsa-sha256",headers="host date",signature="AA=="')),
    ).toBe('Mastodon requires the Digest header or (request-target) pseudo-header to be signed')
    expect(
      refusal(
        withSignature(
          'keyId="x",algorithm="rsa-sha256",headers="(request-target) host date",signature="AA=="',
        ),
      ),
    ).toBe('Mastodon requires the Digest header to be signed when doing a POST request')
  })

  it('parses tokens, quoted strings with escapes and the stray "Signature " prefix', () => {
    expect(parseSignatureHeader('Signature keyId="a\\"b",algorithm=rsa-sha256 , signature="x="')).toEqual({
      keyId: 'a"b',
      algorithm: 'rsa-sha256',
      signature: 'x=',
    })
    expect(parseSignatureHeader('keyId="a" junk')).toBeUndefined()
    expect(parseSignatureHeader('')).toBeUndefined()
  })
})
