import { generateKeyPairSync } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createOutboundClient } from '@roost/service'
import { signRequest } from '../../apps/accounts/src/federation/transport/signatures'
import { eventually } from '../stack'
import type { Stack } from '../stack'
import type { TestUser } from '../accounts/social/helpers'

/**
 * A minimal ActivityPub server for the inbox and delivery tests: actors with RSA keys served over http:// on
 * 127.0.0.1 (WebFinger and the actor document), inboxes that record what arrives and answer as told (a status,
 * or a dropped connection), and signed POSTs to a Roost inbox. For interoperability with an independent
 * implementation see test/federation/peer (Fedify); this one lets a test break the rules on purpose.
 */
export interface PeerActor {
  username: string
  uri: string
  keyId: string
  publicKey: string
  privateKey: string
  name: string
  locked: boolean
  /** The actor's type (Person unless told: a Group for a Lemmy community or a PeerTube channel). */
  type?: string
  /** More properties of the actor document (`alsoKnownAs`, `featured`, …), changeable by the test. */
  extra?: Record<string, unknown>
}

export interface Received {
  path: string
  headers: http.IncomingHttpHeaders
  body: string
  activity: Record<string, unknown>
}

const newKeys = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })

/**
 * The HTTP client of the tests' own servers (this peer, the test relay): loopback allowed, and as patient as the
 * tests are on a loaded machine rather than an outbound default's 10 s.
 */
export const testOutboundClient = () =>
  createOutboundClient({ allowHttp: true, allowedPrivateAddresses: '127.0.0.0/8', requestTimeoutMs: 60_000 })

export async function startMiniPeer() {
  const actors = new Map<string, PeerActor>()
  /** Other documents served (GET, by URL): Notes a test makes fetchable. */
  const objects = new Map<string, unknown>()
  /** Files served (GET, by path: a status's attachments), and the paths asked for, in order. */
  const files = new Map<string, { type: string; body: Buffer; failures: number }>()
  const fileRequests: string[] = []
  const received: Received[] = []
  let notes = 0
  /** Answers of the inboxes, taken one per POST; empty: 202. `drop` closes the connection without answering. */
  const answers: (number | 'drop')[] = []
  let attempts = 0
  let base = ''
  /** Inbox POSTs being answered now, and the most there ever were at once; `holdMs` delays every inbox answer. */
  const inboxLoad = { inFlight: 0, maxInFlight: 0, holdMs: 0 }

  const actorJson = (a: PeerActor) => ({
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: a.uri,
    type: a.type ?? 'Person',
    preferredUsername: a.username,
    name: a.name,
    summary: '<p>Hello <b>from</b> the peer<br>second line</p><script>alert(1)</script>',
    url: `${base}/@${a.username}`,
    inbox: `${a.uri}/inbox`,
    outbox: `${a.uri}/outbox`,
    followers: `${a.uri}/followers`,
    following: `${a.uri}/following`,
    endpoints: { sharedInbox: `${base}/inbox` },
    manuallyApprovesFollowers: a.locked,
    publicKey: { id: a.keyId, owner: a.uri, publicKeyPem: a.publicKey },
    ...a.extra,
  })

  const isInbox = (path: string) => path === '/inbox' || /^\/users\/[^/]+\/inbox$/.test(path)
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && isInbox(new URL(req.url!, 'http://x').pathname)) {
      inboxLoad.maxInFlight = Math.max(inboxLoad.maxInFlight, ++inboxLoad.inFlight)
      // Out of flight as soon as the answer starts (before the sender can hear it), or when the request dies.
      let done = false
      const finish = () => {
        if (!done) inboxLoad.inFlight--
        done = true
      }
      res.on('close', finish)
      const writeHead = res.writeHead.bind(res)
      res.writeHead = ((...args: Parameters<typeof res.writeHead>) => {
        finish()
        return writeHead(...args)
      }) as typeof res.writeHead
    }
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url!, base)
      if (req.method === 'GET' && url.pathname === '/.well-known/webfinger') {
        const m = /^acct:([^@]+)@/.exec(url.searchParams.get('resource') ?? '')
        const a = m ? actors.get(m[1]!) : undefined
        if (!a) return res.writeHead(404).end()
        res.writeHead(200, { 'Content-Type': 'application/jrd+json' })
        return res.end(
          JSON.stringify({
            subject: `acct:${a.username}@${new URL(base).host}`,
            links: [{ rel: 'self', type: 'application/activity+json', href: a.uri }],
          }),
        )
      }
      const file = req.method === 'GET' ? files.get(url.pathname) : undefined
      if (req.method === 'GET' && url.pathname.startsWith('/files/')) fileRequests.push(url.pathname)
      if (file && file.failures > 0) {
        file.failures--
        return res.writeHead(503).end()
      }
      if (file) {
        res.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.length })
        return res.end(file.body)
      }
      const object = req.method === 'GET' ? objects.get(`${base}${url.pathname}`) : undefined
      if (object) {
        res.writeHead(200, { 'Content-Type': 'application/activity+json' })
        return res.end(JSON.stringify(object))
      }
      const actor = /^\/users\/([^/]+)$/.exec(url.pathname)
      if (req.method === 'GET' && actor) {
        const a = actors.get(actor[1]!)
        if (!a) return res.writeHead(404).end()
        res.writeHead(200, { 'Content-Type': 'application/activity+json' })
        return res.end(JSON.stringify(actorJson(a)))
      }
      if (req.method === 'POST' && isInbox(url.pathname)) {
        attempts++
        const answer = answers.shift() ?? 202
        if (answer === 'drop') return req.socket.destroy()
        const respond = () => {
          if (answer < 300) {
            const body = Buffer.concat(chunks).toString('utf8')
            received.push({ path: url.pathname, headers: req.headers, body, activity: JSON.parse(body) })
          }
          res.writeHead(answer).end()
        }
        if (inboxLoad.holdMs) return void setTimeout(respond, inboxLoad.holdMs)
        return respond()
      }
      res.writeHead(404).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const client = testOutboundClient()

  const peer = {
    get base() {
      return base
    },
    get domain() {
      return new URL(base).host
    },
    actors,
    objects,
    /** Serves `body` at `<base>/files/<name>` (after answering 503 `failFirst` times); its URL. */
    file(name: string, type: string, body: Buffer, options: { failFirst?: number } = {}) {
      files.set(`/files/${name}`, { type, body, failures: options.failFirst ?? 0 })
      return `${base}/files/${name}`
    },
    fileRequests,
    received,
    answers,
    get attempts() {
      return attempts
    },
    inboxLoad,
    /** Adds an actor (or gives an existing one a new key: key rotation). */
    actor(
      username: string,
      options: { locked?: boolean; name?: string; type?: string; extra?: Record<string, unknown> } = {},
    ): PeerActor {
      const uri = `${base}/users/${username}`
      const keys = newKeys()
      const a: PeerActor = {
        username,
        uri,
        keyId: `${uri}#main-key`,
        publicKey: keys.publicKey,
        privateKey: keys.privateKey,
        name: options.name ?? username,
        locked: options.locked ?? false,
        type: options.type,
        extra: options.extra,
      }
      actors.set(username, a)
      return a
    },
    actorJson,
    /**
     * A public Note of `author`'s (answering `inReplyTo`), served at its id unless `served` is false, and at `page`
     * (its `url`) when given.
     */
    note(
      author: PeerActor,
      text: string,
      inReplyTo?: string,
      options: { served?: boolean; page?: string } = {},
    ) {
      const n = ++notes
      const object = {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${author.uri}/statuses/${n}`,
        type: 'Note',
        attributedTo: author.uri,
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        cc: [`${author.uri}/followers`],
        content: `<p>${text}</p>`,
        published: new Date(Date.now() - 60_000 + n).toISOString(),
        ...(inReplyTo ? { inReplyTo } : {}),
        ...(options.page ? { url: options.page } : {}),
      }
      if (options.served !== false) objects.set(object.id, object)
      if (options.page) objects.set(options.page, object)
      return object
    },
    /**
     * POSTs `activity` to `inbox`, signed by `signer` (with `overrides` to break the rules: another key, a date,
     * headers taken out or changed, another body than the one signed).
     */
    async post(
      inbox: string,
      signer: PeerActor,
      activity: unknown,
      overrides: {
        privateKey?: string
        keyId?: string
        now?: Date
        body?: string
        headers?: Record<string, string | undefined>
      } = {},
    ) {
      const signedBody = typeof activity === 'string' ? activity : JSON.stringify(activity)
      const signed = signRequest({
        method: 'POST',
        url: new URL(inbox),
        body: signedBody,
        keyId: overrides.keyId ?? signer.keyId,
        privateKey: overrides.privateKey ?? signer.privateKey,
        now: overrides.now,
      })
      const headers: Record<string, string> = { 'Content-Type': 'application/activity+json' }
      for (const [k, v] of Object.entries({ ...signed, ...overrides.headers }))
        if (v !== undefined) headers[k] = v
      const res = await client.request('POST', inbox, headers, overrides.body ?? signedBody)
      const text = res.body.toString('utf8')
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined }
    },
    async stop() {
      client.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  return peer
}

export type MiniPeer = Awaited<ReturnType<typeof startMiniPeer>>

/*
 * What the tests that talk to Roost through a mini-peer do again and again: resolve a peer's actor as a local user,
 * follow it and have the peer accept, and deliver a Create of one of its objects to the shared inbox.
 */
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public'

/** The Account entity of `actor` as `user` finds it by search with `resolve=true` (WebFinger, then the actor). */
export async function resolveActor(
  user: TestUser,
  peer: MiniPeer,
  actor: PeerActor | string,
): Promise<{ id: string } & Record<string, unknown>> {
  const username = typeof actor === 'string' ? actor : actor.username
  const found = await user
    .get(`/api/v2/search?q=${encodeURIComponent(`@${username}@${peer.domain}`)}&resolve=true&type=accounts`)
    .expect(200)
  if (!found.body.accounts[0]) throw new Error(`${username}@${peer.domain} was not found`)
  return found.body.accounts[0]
}

/** `user` follows `actor`, the peer accepts the Follow it received; the actor's Account entity once followed. */
export async function followAccepted(stack: Stack, user: TestUser, peer: MiniPeer, actor: PeerActor) {
  const account = await resolveActor(user, peer, actor)
  const seen = peer.received.length
  await user.post(`/api/v1/accounts/${account.id}/follow`).expect(200)
  const follow = await eventually(async () =>
    peer.received.slice(seen).find((r) => r.activity.type === 'Follow' && r.activity.object === actor.uri),
  )
  await peer.post(`${stack.url}/inbox`, actor, {
    id: `${actor.uri}#accepts/follows/${String(follow.activity.id).split('/').pop()}`,
    type: 'Accept',
    actor: actor.uri,
    object: follow.activity,
  })
  await eventually(async () => {
    const r = (await user.get(`/api/v1/accounts/relationships?id[]=${account.id}`).expect(200)).body[0]
    return r.following || undefined
  }, 60_000)
  return account
}

/**
 * A `Create` of `object` (a Note unless it says otherwise; public, from `author`) as most servers wrap one: its
 * audience copied, `activity` merged in (another id, context, …).
 */
export const createOf = (
  author: PeerActor,
  object: Record<string, unknown>,
  activity: Record<string, unknown> = {},
) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${String(object.id)}/activity`,
  type: 'Create',
  actor: author.uri,
  to: object.to ?? [PUBLIC],
  ...(object.cc ? { cc: object.cc } : {}),
  object,
  ...activity,
})

/**
 * Posts `activity` (a Create, usually `createOf(…)`) signed by `author` to the shared inbox, waits until the workers
 * are done, and returns the stored row of the status whose ActivityPub id is `uri`.
 */
export async function deliverCreate(
  stack: Stack,
  peer: MiniPeer,
  author: PeerActor,
  activity: Record<string, unknown>,
  uri = String((activity.object as { id?: unknown }).id),
): Promise<{ id: string } & Record<string, unknown>> {
  const res = await peer.post(`${stack.url}/inbox`, author, activity)
  if (res.status !== 202) throw new Error(`the inbox answered ${res.status}: ${JSON.stringify(res.body)}`)
  await stack.drain(120_000)
  const row = await stack.accounts.ctx.db('statuses').where({ uri }).first()
  if (!row) throw new Error(`${uri} was not stored`)
  return row
}

let mentionNotes = 0

/**
 * A public Note of `author`'s mentioning the local `username` (so that it is stored: nobody here needs to follow the
 * author), with a new id unless `fields` give one, and `fields` merged in (`attachment`, …).
 */
export function mentionNote(
  stack: Stack,
  author: PeerActor,
  fields: Record<string, unknown> = {},
  username = 'alice',
) {
  const local = `${stack.url}/users/${username}`
  return {
    id: `${author.uri}/statuses/mention-${++mentionNotes}`,
    type: 'Note',
    attributedTo: author.uri,
    to: [PUBLIC],
    cc: [local],
    content: `<p>@${username} look</p>`,
    published: new Date().toISOString(),
    tag: [{ type: 'Mention', href: local, name: `@${username}` }],
    ...fields,
  }
}

/** `mentionNote(…)` delivered in a Create and handled; the status as `user` (the one mentioned) sees it. */
export async function receiveMention<T = Record<string, unknown>>(
  stack: Stack,
  peer: MiniPeer,
  author: PeerActor,
  user: TestUser,
  fields: Record<string, unknown> = {},
  username = 'alice',
) {
  const object = mentionNote(stack, author, fields, username)
  const row = await deliverCreate(stack, peer, author, createOf(author, object))
  return (await user.get(`/api/v1/statuses/${row.id}`).expect(200)).body as T
}
