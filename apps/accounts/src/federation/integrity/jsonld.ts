import jsonld from 'jsonld'
import type { RemoteDocument } from 'jsonld/jsonld-spec'
import activitystreams from './contexts/activitystreams.json'
import dataIntegrityV1 from './contexts/data-integrity-v1.json'
import didV1 from './contexts/did-v1.json'
import gotosocial from './contexts/gotosocial.json'
import identityV1 from './contexts/identity-v1.json'
import multikeyV1 from './contexts/multikey-v1.json'
import securityV1 from './contexts/security-v1.json'
import webfinger from './contexts/webfinger.json'

/**
 * JSON-LD for Linked Data signatures (docs/federation.md, "Forwarded activities"): the contexts ActivityPub
 * documents name, shipped with Roost as local documents (the W3C and community contexts, verbatim), and a document
 * loader that refuses every other: no context is ever fetched from the network, so a signature's meaning cannot
 * change with a server's answer, and no activity can make the worker fetch anything (Mastodon caches the same set).
 */
const CONTEXTS: Record<string, unknown> = {
  'https://www.w3.org/ns/activitystreams': activitystreams,
  'https://w3id.org/security/v1': securityV1,
  'https://w3id.org/identity/v1': identityV1,
  'https://w3id.org/security/data-integrity/v1': dataIntegrityV1,
  'https://w3id.org/security/multikey/v1': multikeyV1,
  'https://www.w3.org/ns/did/v1': didV1,
  'https://purl.archive.org/socialweb/webfinger': webfinger,
  'https://gotosocial.org/ns': gotosocial,
}

/** A context Roost does not ship: the document that names it cannot be verified. */
export class UnknownContextError extends Error {}

/** The document loader: the shipped contexts (also under http:// and with a trailing `.jsonld`), nothing else. */
export async function documentLoader(url: string): Promise<RemoteDocument> {
  const key = url.replace(/^http:\/\//, 'https://').replace(/\.jsonld$/, '')
  const document = CONTEXTS[key]
  if (!document) throw new UnknownContextError(`the JSON-LD context ${url} is not one Roost ships`)
  return { documentUrl: url, document: document as RemoteDocument['document'] }
}

type Doc = Record<string, unknown>

/**
 * URDNA2015 canonical N-Quads of a document, as Mastodon's `canonicalize` (not in jsonld.js's safe mode: terms no
 * context defines are left out, as Ruby's JSON-LD does, so that a signature made by Mastodon verifies). The deep
 * iterations of the algorithm are bounded: a graph of look-alike blank nodes (a "poison graph", whose
 * canonicalization grows factorially) is refused at once instead of holding the worker.
 */
export async function canonize(doc: Doc): Promise<string> {
  return jsonld.canonize(
    doc as jsonld.JsonLdDocument,
    {
      documentLoader,
      safe: false,
      // RDFC-1.0 is URDNA2015 under its W3C name; at most one deep iteration per blank node in proportion to their
      // number (rdf-canonize's default, said here because it is what keeps a poison graph from holding the worker).
      canonizeOptions: { algorithm: 'RDFC-1.0', maxWorkFactor: 1 },
    } as jsonld.Options.Normalize,
  ) as Promise<string>
}

/**
 * The document compacted with its own context: what the signature covers, in the shape it came in. Properties no
 * context defines (which no Linked Data signature covers) are gone, so that what a verified activity does is
 * only what its author signed (Mastodon processes the compacted document likewise).
 */
export async function signedPart(doc: Doc): Promise<Doc> {
  const context = doc['@context']
  if (context === undefined) return {}
  const expanded = await jsonld.expand(
    doc as jsonld.JsonLdDocument,
    { documentLoader } as jsonld.Options.Expand,
  )
  const compacted = (await jsonld.compact(
    withoutBlankProperties(expanded) as jsonld.JsonLdDocument,
    context as jsonld.ContextDefinition,
    { documentLoader } as jsonld.Options.Compact,
  )) as Doc
  return { ...compacted, '@context': context }
}

/**
 * Expanded JSON-LD without the properties whose IRI is a blank node: the ActivityStreams context maps every term
 * it does not define to one (`"@vocab": "_:"`), and no RDF statement, so no signature, covers them.
 */
function withoutBlankProperties(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutBlankProperties)
  if (!v || typeof v !== 'object') return v
  return Object.fromEntries(
    Object.entries(v as Doc)
      .filter(([k]) => !k.startsWith('_:'))
      .map(([k, x]) => [k, k === '@value' ? x : withoutBlankProperties(x)]),
  )
}
