import { generateKeyPairSync } from 'node:crypto'
import { contentDigestOf, signMessage } from './message-signatures'
import type { IncomingRequest } from './signatures'
import { checkSignedRequest, SignatureError, verifiedBy } from './signatures'

const pem = (type: 'rsa' | 'ed25519') =>
  generateKeyPairSync(type as 'rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
const alice = pem('rsa')
const mallory = pem('rsa')
const edward = pem('ed25519')
const keyId = 'https://a.example/users/alice#main-key'
const now = new Date('2026-11-25T12:00:00Z')

function signed(
  method: 'GET' | 'POST',
  url: string,
  body?: string,
  options: { privateKey?: string; date?: Date } = {},
): IncomingRequest {
  const u = new URL(url)
  const headers = signMessage({
    method,
    url: u,
    body,
    keyId,
    privateKey: options.privateKey ?? alice.privateKey,
    now: options.date ?? now,
  })
  return {
    method,
    url: `${u.pathname}${u.search}`,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    body: body === undefined ? undefined : Buffer.from(body),
    origins: [u.origin],
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

describe('HTTP message signatures (RFC 9421)', () => {
  it('signs @method, @target-uri and content-digest with created and keyid, and verifies with the public key', () => {
    const r = signed('POST', 'https://b.example/users/bob/inbox?x=1', '{"type":"Follow"}')
    expect(r.headers['signature-input']).toBe(
      `sig1=("@method" "@target-uri" "content-digest");created=${now.getTime() / 1000};keyid="${keyId}"`,
    )
    expect(r.headers.signature).toMatch(/^sig1=:[A-Za-z0-9+/=]+:$/)
    expect(r.headers['content-digest']).toBe(contentDigestOf('{"type":"Follow"}'))
    const checked = checkSignedRequest(r, now)
    expect(checked).toMatchObject({ scheme: 'rfc9421', keyId })
    expect(checked.signingStrings[0]).toBe(
      [
        '"@method": POST',
        '"@target-uri": https://b.example/users/bob/inbox?x=1',
        `"content-digest": ${contentDigestOf('{"type":"Follow"}')}`,
        `"@signature-params": ("@method" "@target-uri" "content-digest");created=${now.getTime() / 1000};keyid="${keyId}"`,
      ].join('\n'),
    )
    expect(verifiedBy(alice.publicKey, checked)).toBe(true)
    expect(verifiedBy(mallory.publicKey, checked)).toBe(false)
  })

  it('signs a GET without a digest, and Ed25519 keys sign and verify too', () => {
    const r = signed('GET', 'https://b.example/users/bob', undefined, { privateKey: edward.privateKey })
    expect(r.headers['content-digest']).toBeUndefined()
    const checked = checkSignedRequest(r, now)
    expect(verifiedBy(edward.publicKey, checked)).toBe(true)
    expect(verifiedBy(alice.publicKey, checked)).toBe(false)
  })

  it('refuses another target, method or body than the one signed', () => {
    const r = signed('POST', 'https://b.example/inbox', '{"a":1}')
    expect(
      verifiedBy(alice.publicKey, checkSignedRequest({ ...r, origins: ['https://c.example'] }, now)),
    ).toBe(false)
    expect(verifiedBy(alice.publicKey, checkSignedRequest({ ...r, url: '/other' }, now))).toBe(false)
    expect(refusal({ ...r, body: Buffer.from('{"a":2}') })).toMatch(
      /^Invalid Digest value\. Computed SHA-256/,
    )
    const digest = contentDigestOf('{"a":2}')
    expect(
      refusal({ ...r, body: Buffer.from('{"a":2}'), headers: { ...r.headers, 'content-digest': digest } }),
    ).toBe(undefined)
    expect(
      verifiedBy(
        alice.publicKey,
        checkSignedRequest(
          { ...r, body: Buffer.from('{"a":2}'), headers: { ...r.headers, 'content-digest': digest } },
          now,
        ),
      ),
    ).toBe(false)
  })

  it('refuses as Mastodon does: missing parameters, components, digest, and dates out of the window', () => {
    const r = signed('POST', 'https://b.example/inbox', '{}')
    const input = r.headers['signature-input'] as string
    const withInput = (value: string) => ({ ...r, headers: { ...r.headers, 'signature-input': value } })
    expect(refusal(withInput(input.replace(/;created=\d+/, '')))).toBe(
      'Incompatible request signature. keyid and created are required',
    )
    expect(refusal(withInput(input.replace('"@target-uri" ', '')))).toBe(
      'Mastodon requires the @method and @target-uri derived components to be signed',
    )
    expect(refusal(withInput(input.replace(' "content-digest"', '')))).toBe(
      'Mastodon requires the Content-Digest header to be signed when doing a POST request',
    )
    expect(refusal(withInput('sig1=("@method"'))).toBe('Error parsing signature parameters')
    expect(refusal({ ...r, headers: { ...r.headers, 'content-digest': 'md5=:AAAA:' } })).toBe(
      'Mastodon only supports SHA-256 in Content-Digest header. Offered algorithms: md5',
    )
    expect(refusal(r, new Date(now.getTime() + 2 * 3600_000))).toBe(
      'Signed request date outside acceptable time window',
    )
    expect(
      refusal(
        signed('POST', 'https://b.example/inbox', '{}', { date: new Date(now.getTime() + 2 * 3600_000) }),
      ),
    ).toBe('Signed request date outside acceptable time window')
    expect(refusal(r, new Date(now.getTime() + 30 * 60_000))).toBe(undefined)
  })
})
