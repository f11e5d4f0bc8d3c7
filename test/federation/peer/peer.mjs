// An independent ActivityPub server for Roost's federation tests, built on Fedify (@fedify/fedify 1.5, which runs on
// Node 20; see docs/federation.md, "Interoperability tests"). Nothing here is Roost code: WebFinger, the actor, its
// RSA key, the signing of outgoing requests and the checking of incoming signatures are all Fedify's own.
//
// It is a child process of the test (Fedify is ESM-only, jest runs CommonJS). It prints `listening <port>` once up.
// Environment: PEER_USERS (comma-separated usernames, default `bob`), PEER_AUTO_ACCEPT (`true`: Follows are
// accepted as they arrive), PEER_HTTP_HOSTS (comma-separated `host:port`s reached over http although Fedify 1.5
// builds `https://` WebFinger URLs from `acct:` handles: the tests' Roost servers listen on plain http).
//
// Besides ActivityPub it answers a small JSON control API under /_peer/ for the test to drive it (see ./index.ts).
/* global Request, Headers, fetch */
import { Buffer } from 'node:buffer'
import { randomUUID } from 'node:crypto'
import http from 'node:http'
import { URL } from 'node:url'
import {
  Accept,
  Announce,
  Create,
  Delete,
  Endpoints,
  Follow,
  Like,
  Update,
  Person,
  Reject,
  Undo,
  createFederation,
  exportJwk,
  generateCryptoKeyPair,
  importJwk,
  MemoryKvStore,
  Mention,
  Note,
  PUBLIC_COLLECTION,
} from '@fedify/fedify'
import { signJsonLd, signObject, signRequest, verifyJsonLd, verifyRequest } from '@fedify/fedify/sig'
import { getDocumentLoader } from '@fedify/fedify/runtime'

const users = (process.env.PEER_USERS ?? 'bob').split(',').filter(Boolean)
let autoAccept = process.env.PEER_AUTO_ACCEPT === 'true'
const httpHosts = new Set((process.env.PEER_HTTP_HOSTS ?? '').split(',').filter(Boolean))

// Fedify 1.5 always asks `https://<host>/.well-known/webfinger` for an `acct:` handle. The test servers are plain
// http on loopback, so those (and only those) requests go over http, as a development proxy would arrange.
const realFetch = globalThis.fetch
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  if (url.protocol === 'https:' && httpHosts.has(url.host) && url.pathname === '/.well-known/webfinger') {
    url.protocol = 'http:'
    return realFetch(url, init)
  }
  return realFetch(input, init)
}

/** What the peer saw and did, for the test to read. */
const log = {
  /** Activities its inboxes accepted (Fedify verified their signatures first). */
  inbox: [],
  /** Signed GETs of its actors: the key Fedify verified and its owner. */
  signedGets: [],
  /** Activities it sent, with the outcome. */
  sent: [],
}

// Each user has an RSA key (HTTP and Linked Data signatures) and an Ed25519 key (FEP-8b32 integrity proofs, published
// as an assertionMethod Multikey), as Fedify-based servers have.
const keys = new Map()
for (const user of users) {
  const pairs = []
  for (const algorithm of ['RSASSA-PKCS1-v1_5', 'Ed25519']) {
    const pair = await generateCryptoKeyPair(algorithm)
    pairs.push({ privateKey: await exportJwk(pair.privateKey), publicKey: await exportJwk(pair.publicKey) })
  }
  keys.set(user, pairs)
}

const server = http.createServer((req, res) => {
  // Errors go back to the caller (the test), which decides whether they were expected.
  handle(req, res).catch((error) => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: String(error) }))
  })
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const port = server.address().port
const origin = `http://127.0.0.1:${port}`

const federation = createFederation({
  kv: new MemoryKvStore(),
  origin,
  allowPrivateAddress: true,
  // Mastodon's window is an hour of skew either way; Fedify's default (an hour) matches.
})

federation
  .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
    if (!keys.has(identifier)) return null
    const pairs = await ctx.getActorKeyPairs(identifier)
    return new Person({
      id: ctx.getActorUri(identifier),
      preferredUsername: identifier,
      name: `${identifier} on the Fedify peer`,
      inbox: ctx.getInboxUri(identifier),
      endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
      url: ctx.getActorUri(identifier),
      publicKey: pairs[0].cryptographicKey,
      assertionMethods: pairs.map((p) => p.multikey),
      manuallyApprovesFollowers: !autoAccept,
    })
  })
  .setKeyPairsDispatcher(async (_ctx, identifier) => {
    const pairs = keys.get(identifier) ?? []
    return Promise.all(
      pairs.map(async (pair) => ({
        privateKey: await importJwk(pair.privateKey, 'private'),
        publicKey: await importJwk(pair.publicKey, 'public'),
      })),
    )
  })
  .authorize(async (ctx, identifier, signedKey, signedKeyOwner) => {
    // Everyone may read the actor; signed GETs are recorded with what Fedify verified.
    if (ctx.request.headers.has('signature'))
      log.signedGets.push({
        path: new URL(ctx.request.url).pathname,
        identifier,
        keyId: signedKey?.id?.href ?? null,
        owner: signedKeyOwner?.id?.href ?? null,
      })
    return true
  })

const record = async (ctx, activity) => {
  const json = await activity.toJsonLd({ format: 'compact', contextLoader: ctx.contextLoader })
  log.inbox.push({
    type: json.type,
    id: activity.id?.href ?? null,
    actor: activity.actorId?.href ?? null,
    object: activity.objectId?.href ?? null,
    recipient: ctx.recipient ?? null,
    json,
  })
}

federation
  .setInboxListeners('/users/{identifier}/inbox', '/inbox')
  .on(Follow, async (ctx, follow) => {
    await record(ctx, follow)
    if (!autoAccept || !follow.objectId) return
    const target = ctx.parseUri(follow.objectId)
    if (target?.type !== 'actor') return
    const follower = await follow.getActor(ctx)
    if (follower)
      send(ctx, target.identifier, follower, new Accept({ actor: follow.objectId, object: follow }))
  })
  .on(Accept, record)
  .on(Reject, record)
  .on(Undo, record)
  .on(Create, record)
  .on(Update, record)
  .on(Delete, record)
  .on(Announce, record)
  .on(Like, record)
  .onError((_ctx, error) => console.error('peer: inbox error', error))

/** Sends in the background (the inbox answers first, as real servers queue their deliveries), logging the outcome. */
function send(ctx, identifier, recipient, activity) {
  const entry = {
    type: activity.constructor.name,
    id: activity.id?.href ?? null,
    to: recipient.id?.href,
    ok: null,
  }
  log.sent.push(entry)
  ctx
    .sendActivity({ identifier }, recipient, activity)
    .then(() => (entry.ok = true))
    .catch((error) => {
      entry.ok = false
      entry.error = String(error)
    })
}

/** Fedify wants a fetch Request; this is the node http adapter (what @fedify/express does for express). */
async function handle(req, res) {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const body = Buffer.concat(chunks)
  const url = new URL(req.url, origin)
  if (url.pathname.startsWith('/_peer/')) return control(url, body, res)
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers))
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  const request = new Request(url, {
    method: req.method,
    headers,
    body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
  })
  const response = await federation.fetch(request, { contextData: undefined })
  res.writeHead(response.status, Object.fromEntries(response.headers))
  res.end(Buffer.from(await response.arrayBuffer()))
}

/** The control API: the test asks the peer to act, and reads what it saw. */
async function control(url, body, res) {
  const input = body.length ? JSON.parse(body.toString('utf8')) : {}
  const reply = (status, value) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(value))
  }
  const ctx = federation.createContext(new URL(origin), undefined)
  const as = input.as ?? users[0]
  switch (url.pathname) {
    case '/_peer/log':
      return reply(200, log)
    case '/_peer/auto-accept':
      autoAccept = input.on === true
      return reply(200, { autoAccept })
    case '/_peer/lookup': {
      // A handle (`@user@host`, by WebFinger) or a URL, fetched with GETs signed by `as` (Fedify's own signing).
      const documentLoader = await ctx.getDocumentLoader({ identifier: as })
      const object = await ctx.lookupObject(input.resource, { documentLoader })
      if (!object) return reply(404, { error: 'not found' })
      const json = await object.toJsonLd({ format: 'compact', contextLoader: ctx.contextLoader })
      const key = object instanceof Person ? await object.getPublicKey({ documentLoader }) : null
      return reply(200, { json, publicKey: key ? await exportJwk(await key.publicKey) : null })
    }
    case '/_peer/webfinger': {
      // The JRD as Fedify's WebFinger client reads it (no ActivityPub fetch).
      const { lookupWebFinger } = await import('@fedify/fedify/webfinger')
      const jrd = await lookupWebFinger(input.resource, { allowPrivateAddress: true })
      return jrd ? reply(200, jrd) : reply(404, { error: 'not found' })
    }
    case '/_peer/follow':
    case '/_peer/unfollow': {
      const documentLoader = await ctx.getDocumentLoader({ identifier: as })
      const target = await ctx.lookupObject(input.actor, { documentLoader })
      if (!target?.id) return reply(404, { error: 'not found' })
      const followId = new URL(input.followId ?? `${ctx.getActorUri(as).href}#follows/${randomUUID()}`)
      const follow = new Follow({ id: followId, actor: ctx.getActorUri(as), object: target.id })
      const activity =
        url.pathname === '/_peer/follow'
          ? follow
          : new Undo({ id: new URL(`${followId.href}/undo`), actor: ctx.getActorUri(as), object: follow })
      await ctx.sendActivity({ identifier: as }, target, activity)
      log.sent.push({ type: activity.constructor.name, id: activity.id.href, to: target.id.href, ok: true })
      return reply(200, { id: activity.id.href, followId: followId.href, target: target.id.href })
    }
    case '/_peer/accept':
    case '/_peer/reject': {
      // Settles a Follow the peer received (by its id).
      const entry = log.inbox.find((a) => a.type === 'Follow' && a.id === input.follow)
      if (!entry) return reply(404, { error: 'no such Follow' })
      const follow = await Follow.fromJsonLd(entry.json, { contextLoader: ctx.contextLoader })
      const follower = await follow.getActor({
        documentLoader: await ctx.getDocumentLoader({ identifier: as }),
      })
      const Type = url.pathname === '/_peer/accept' ? Accept : Reject
      const activity = new Type({
        id: new URL(`${ctx.getActorUri(as).href}#settle/${randomUUID()}`),
        actor: ctx.getActorUri(as),
        object: follow,
      })
      await ctx.sendActivity({ identifier: as }, follower, activity)
      log.sent.push({ type: Type.name, id: activity.id.href, to: follower.id.href, ok: true })
      return reply(200, { id: activity.id.href })
    }
    case '/_peer/post': {
      // A public Note of `as` mentioning `input.mention` (an actor URL), in a Create sent to that actor's inbox
      // (Fedify builds, signs and delivers it).
      const documentLoader = await ctx.getDocumentLoader({ identifier: as })
      const target = await ctx.lookupObject(input.mention, { documentLoader })
      if (!target?.id) return reply(404, { error: 'not found' })
      const actor = ctx.getActorUri(as)
      const noteId = new URL(`${actor.href}/notes/${randomUUID()}`)
      const note = new Note({
        id: noteId,
        attribution: actor,
        to: PUBLIC_COLLECTION,
        cc: target.id,
        content: input.content,
        tags: [new Mention({ href: target.id, name: input.mentionName })],
      })
      const create = new Create({
        id: new URL(`${noteId.href}/activity`),
        actor,
        to: PUBLIC_COLLECTION,
        cc: target.id,
        object: note,
      })
      await ctx.sendActivity({ identifier: as }, target, create)
      log.sent.push({ type: 'Create', id: create.id.href, to: target.id.href, ok: true })
      return reply(200, { id: create.id.href, note: noteId.href })
    }
    case '/_peer/sign': {
      // Signs a request with `as`'s key by Fedify's signRequest and answers the headers (nothing is sent).
      const [pair] = await ctx.getActorKeyPairs(as)
      const request = new Request(input.url, {
        method: input.method ?? 'GET',
        headers: input.headers ?? {},
        body: input.body,
      })
      const signed = await signRequest(request, pair.privateKey, pair.keyId)
      return reply(200, { keyId: pair.keyId.href, headers: Object.fromEntries(signed.headers) })
    }
    case '/_peer/signed-create': {
      // A public Note of `as` answering `input.inReplyTo`, in a Create that is not sent but answered, signed as asked:
      // `ld`, a Linked Data signature (RsaSignature2017, Fedify's signJsonLd); `proof`, an FEP-8b32 integrity proof
      // (eddsa-jcs-2022, Fedify's signObject with the Ed25519 key).
      const actor = ctx.getActorUri(as)
      const noteId = new URL(`${actor.href}/notes/${randomUUID()}`)
      const cc = (input.cc ?? []).map((u) => new URL(u))
      const note = new Note({
        id: noteId,
        attribution: actor,
        to: PUBLIC_COLLECTION,
        ccs: cc,
        content: input.content,
        replyTarget: input.inReplyTo ? new URL(input.inReplyTo) : null,
      })
      let create = new Create({
        id: new URL(`${noteId.href}/activity`),
        actor,
        to: PUBLIC_COLLECTION,
        ccs: cc,
        object: note,
      })
      const pairs = await ctx.getActorKeyPairs(as)
      const rsa = pairs.find((p) => p.privateKey.algorithm.name === 'RSASSA-PKCS1-v1_5')
      const ed25519 = pairs.find((p) => p.privateKey.algorithm.name === 'Ed25519')
      if (input.proof)
        create = await signObject(create, ed25519.privateKey, ed25519.keyId, {
          contextLoader: ctx.contextLoader,
        })
      let json = await create.toJsonLd({ format: 'compact', contextLoader: ctx.contextLoader })
      if (input.ld)
        json = await signJsonLd(json, rsa.privateKey, rsa.keyId, { contextLoader: ctx.contextLoader })
      return reply(200, { json, note: noteId.href })
    }
    case '/_peer/deliver': {
      // POSTs `input.json` as it is to `input.inbox`, signed over HTTP by `as` (Fedify's signRequest).
      const [pair] = await ctx.getActorKeyPairs(as)
      const request = new Request(input.inbox, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify(input.json),
      })
      const response = await fetch(await signRequest(request, pair.privateKey, pair.keyId))
      return reply(200, { status: response.status })
    }
    case '/_peer/verify-ld': {
      // Fedify's verifyJsonLd on a document someone else signed (the key is fetched from its creator).
      const documentLoader = getDocumentLoader({ allowPrivateAddress: true })
      const verified = await verifyJsonLd(input.json, { documentLoader, contextLoader: documentLoader })
      return reply(200, { verified })
    }
    case '/_peer/verify': {
      // Checks a request someone else signed with Fedify's verifyRequest (the key is fetched from its keyId).
      const request = new Request(input.url, {
        method: input.method ?? 'GET',
        headers: input.headers ?? {},
        body: input.body,
      })
      const documentLoader = getDocumentLoader({ allowPrivateAddress: true })
      const key = await verifyRequest(request, { documentLoader, contextLoader: documentLoader })
      return reply(200, {
        verified: key !== null,
        keyId: key?.id?.href ?? null,
        owner: key?.ownerId?.href ?? null,
      })
    }
    default:
      return reply(404, { error: 'unknown control' })
  }
}

process.on('SIGTERM', () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
})
console.log(`listening ${port}`)
