import { generateKeyPairSync } from 'node:crypto'
import { canonize, signedPart } from './jsonld'
import { ldSignatureVerifies, signLd } from './ld-signatures'
import {
  base58btcDecode,
  base58btcEncode,
  ed25519FromMultibase,
  jcs,
  multibaseOf,
  proofVerifies,
  signProof,
} from './proofs'

const rsa = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
const ed = () =>
  generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })

const create = () => ({
  '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
  id: 'https://a.example/users/bob/statuses/1/activity',
  type: 'Create',
  actor: 'https://a.example/users/bob',
  to: ['https://www.w3.org/ns/activitystreams#Public'],
  object: {
    id: 'https://a.example/users/bob/statuses/1',
    type: 'Note',
    attributedTo: 'https://a.example/users/bob',
    inReplyTo: 'https://b.example/users/alice/statuses/9',
    content: '<p>Hello</p>',
    to: ['https://www.w3.org/ns/activitystreams#Public'],
  },
})

describe('Linked Data signatures (RsaSignature2017)', () => {
  const bob = rsa()
  it('verifies what it signed, and not a tampered copy or another key', async () => {
    const signed = await signLd(create(), 'https://a.example/users/bob#main-key', bob.privateKey)
    expect(signed.signature).toMatchObject({
      type: 'RsaSignature2017',
      creator: 'https://a.example/users/bob#main-key',
    })
    expect(await ldSignatureVerifies(signed, bob.publicKey)).toBe(true)
    expect(await ldSignatureVerifies(signed, rsa().publicKey)).toBe(false)
    const tampered = { ...signed, object: { ...(signed.object as object), content: '<p>Evil</p>' } }
    expect(await ldSignatureVerifies(tampered, bob.publicKey)).toBe(false)
    // Key order and JSON formatting are not part of what is signed.
    const reordered = Object.fromEntries(Object.entries(signed).reverse())
    expect(await ldSignatureVerifies(JSON.parse(JSON.stringify(reordered, null, 2)), bob.publicKey)).toBe(
      true,
    )
  })

  it('loads only the contexts it ships: anything else is refused, nothing is fetched', async () => {
    await expect(canonize({ '@context': 'https://evil.example/context', name: 'x' })).rejects.toThrow(
      /evil\.example/,
    )
  })

  it('refuses a poison graph at once instead of canonicalizing it for ever', async () => {
    const nodes = Array.from({ length: 12 }, (_, i) => ({
      '@id': `_:b${i}`,
      'https://x.example/p': Array.from({ length: 12 }, (_, j) => ({ '@id': `_:b${j}` })),
    }))
    const started = Date.now()
    await expect(canonize({ '@graph': nodes })).rejects.toThrow(/Maximum deep iterations/)
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('keeps only what the signature covers: terms no context defines are gone', async () => {
    const doc = { ...create(), _misskey_quote: 'https://evil.example/notes/1' }
    const part = await signedPart(doc)
    expect(part._misskey_quote).toBeUndefined()
    expect(part).toMatchObject({ type: 'Create', actor: 'https://a.example/users/bob' })
    expect((part.object as Record<string, unknown>).content).toBe('<p>Hello</p>')
  })
})

describe('FEP-8b32 integrity proofs (eddsa-jcs-2022)', () => {
  it('canonicalizes JSON as RFC 8785 does', () => {
    expect(jcs({ b: [1, 2.5, 'x'], a: { d: null, c: true }, é: 1e21 })).toBe(
      '{"a":{"c":true,"d":null},"b":[1,2.5,"x"],"é":1e+21}',
    )
  })

  it('encodes and decodes base58btc and Ed25519 Multikeys', () => {
    const bytes = Buffer.from([0, 0, 1, 2, 255])
    expect(base58btcDecode(base58btcEncode(bytes))).toEqual(bytes)
    const key = ed()
    expect(ed25519FromMultibase(multibaseOf(key.publicKey))?.export({ format: 'pem', type: 'spki' })).toBe(
      key.publicKey,
    )
  })

  it('verifies a proof, and not a tampered copy or another key', () => {
    const key = ed()
    const signed = signProof(create(), 'https://a.example/users/bob#ed25519-key', key.privateKey)
    const publicKey = ed25519FromMultibase(multibaseOf(key.publicKey))!
    expect(proofVerifies(signed, publicKey)).toBe(true)
    expect(proofVerifies(signed, ed25519FromMultibase(multibaseOf(ed().publicKey))!)).toBe(false)
    expect(proofVerifies({ ...signed, to: [] }, publicKey)).toBe(false)
  })
})
